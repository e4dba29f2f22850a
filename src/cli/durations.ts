/** Kept apart from parsers.ts: command modules use it, and must not pull commander into their chunk. */
/** Milliseconds as a person writes them back: 500ms, 60s, 5m, 1h, 90s. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
