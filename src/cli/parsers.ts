import { InvalidArgumentError } from '@commander-js/extra-typings';
import { formatDuration } from './durations.js';
import { parseSinceDate } from '../sync/since-window.js';
import { parseDurationMs } from '../util/duration.js';

export { formatDuration };

/** commander option parsers: a bad value becomes a one-line usage error (exit 2). */
export function integer(name: string, { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {}) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} takes a whole number, got "${value}".`);
    const parsed = Number(value);
    if (parsed < min || parsed > max)
      throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${parsed}.`);
    return parsed;
  };
}

export function decimal(name: string, { min = -Infinity, max = Infinity } = {}) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed))
      throw new InvalidArgumentError(`${name} takes a number, got "${value}".`);
    if (parsed < min || parsed > max)
      throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${parsed}.`);
    return parsed;
  };
}

/** A comma-separated flag (`--only a, b`) as its items, trimmed, empty ones dropped; undefined when not given. */
export function commaList(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** For repeatable options: `--secret a --secret b` gives ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`${name} must be one of ${values.join(', ')}, got "${value}".`);
    return value as T;
  };
}

/** REQUESTS/SECONDS, e.g. 1000/300: at most that many requests per window. */
export function rateLimit(name: string) {
  return (value: string): { requests: number; windowSeconds: number } => {
    const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(value.trim());
    const requests = Number(match?.[1]);
    const windowSeconds = Number(match?.[2]);
    if (!match || requests < 1 || windowSeconds <= 0)
      throw new InvalidArgumentError(`${name} takes REQUESTS/SECONDS, e.g. 1000/300, got "${value}".`);
    return { requests, windowSeconds };
  };
}

/** An ISO 8601 date or date-time with its zone (2026-01-31, 2026-01-31T12:00:00Z), as a UTC timestamp. */
export function isoDate(name: string) {
  return (value: string): string => {
    const parsed = parseSinceDate(value);
    if (parsed === undefined)
      throw new InvalidArgumentError(
        `${name} takes an ISO 8601 date or date-time with its zone, such as 2026-01-31 or 2026-01-31T12:00:00Z, got "${value}".`,
      );
    return parsed;
  };
}

/** A duration such as 60s, 5m, 1h or 500ms (a bare number is seconds), in milliseconds. */
export function duration(name: string, { minMs = 0, maxMs = 24 * 3_600_000 } = {}) {
  return (value: string): number => {
    const ms = parseDurationMs(value);
    if (ms === undefined)
      throw new InvalidArgumentError(`${name} takes a duration such as 60s, 5m or 1h, got "${value}".`);
    if (ms < minMs || ms > maxMs)
      throw new InvalidArgumentError(
        `${name} must be between ${formatDuration(minMs)} and ${formatDuration(maxMs)}, got "${value}".`,
      );
    return ms;
  };
}

/** A duration, or `off` (for a setting that persists beyond the run, such as a queue's schedule). */
export function durationOrOff(name: string, bounds: { minMs?: number; maxMs?: number } = {}) {
  const parse = duration(name, bounds);
  return (value: string): number | 'off' => {
    if (value.trim().toLowerCase() === 'off') return 'off';
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(`${(error as Error).message.replace(/\.$/, '')} (or off).`);
    }
  };
}

/** A retry schedule: durations separated by commas (`5s,30s,2m,10m`), each the wait after one more failure. */
export function durationList(name: string, { minMs = 10, maxMs = 24 * 3_600_000, maxCount = 20 } = {}) {
  const one = duration(name, { minMs, maxMs });
  return (value: string): number[] => {
    const parts = value.split(',').map((part) => part.trim());
    if (parts.length > maxCount || parts.some((part) => part === ''))
      throw new InvalidArgumentError(
        `${name} takes up to ${maxCount} waits separated by commas, such as 5s,30s,2m,10m, got "${value}".`,
      );
    return parts.map(one);
  };
}

/** The "Examples:" block every command's --help ends with. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}
