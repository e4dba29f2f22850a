const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration as people write it: 500ms, 60s, 5m, 1h (a bare number is seconds), in whole
 * milliseconds; undefined when the text is not one. The one reading of a duration, for flags and
 * for stored settings alike.
 */
export function parseDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000));
}

/** Milliseconds as a person writes them back: 500ms, 60s, 5m, 1h, 90s (what parseDurationMs reads). */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
