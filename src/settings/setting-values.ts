import { DEFAULT_PAGE_LIMIT, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { parseDurationMs } from '../util/duration.js';
import { toleranceProblem } from '@ledgerhook/webhooks/advanced';

/**
 * The values of the settings for what the spec leaves open about the service (its page size, the
 * lag an incremental read needs, its rate limit, the webhook age it needs): each read here, once,
 * for `config set`, for the commands that use them and for `probe`, which compares what it finds
 * with what is set. Each parser answers the value, or what is wrong with the text.
 */

/** At most this many requests per window, per access token. */
export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

/** The largest page size a flag or setting may ask for. */
export const MAX_PAGE_LIMIT = 100_000;
/** The longest lag a read may look back (a day). */
export const MAX_LAG_MS = 24 * 3_600_000;
/** The longest webhook age a receiver may accept (a day). */
export const MAX_TOLERANCE_SECONDS = 86_400;

/** `pageLimit`: the `limit` a list request sends (default 100, spec 4.3 rule 3). */
export function parsePageLimit(text: string): number | string {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > MAX_PAGE_LIMIT)
    return `"${text.slice(0, 40)}" is not a page size from 1 to ${MAX_PAGE_LIMIT}`;
  return value;
}

/** `lag`: how far an incremental read looks back past the stored lastUpdatedDate, in ms (e.g. 1s). */
export function parseLag(text: string): number | string {
  const ms = parseDurationMs(text);
  if (ms === undefined) return `"${text.slice(0, 40)}" is not a duration such as 1s or 500ms`;
  if (ms > MAX_LAG_MS) return `"${text.slice(0, 40)}" is longer than a day`;
  return ms;
}

/** The most a lastUpdatedDate may be allowed ahead of the server's clock (a year). */
export const MAX_STAMP_AHEAD_MS = 365 * 24 * 3_600_000;

/** `maxStampAhead`: how far a lastUpdatedDate may be ahead of the server's clock, in ms (e.g. 24h). */
export function parseMaxStampAhead(text: string): number | string {
  const ms = parseDurationMs(text);
  if (ms === undefined) return `"${text.slice(0, 40)}" is not a duration such as 24h or 30m`;
  if (ms > MAX_STAMP_AHEAD_MS) return `"${text.slice(0, 40)}" is longer than a year`;
  return ms;
}

/** `rateLimit`: REQUESTS/SECONDS, e.g. 600/60, whole numbers. */
export function parseRateLimit(text: string): RateLimit | string {
  const match = /^(\d{1,9})\/(\d{1,9})$/.exec(text.trim());
  const requests = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || requests < 1 || windowSeconds < 1)
    return `"${text.slice(0, 40)}" is not REQUESTS/SECONDS such as 600/60`;
  return { requests, windowSeconds };
}

/** `tolerance`: the webhook age, in whole seconds, past which a delivery is expired (spec 5.2, default 300). */
export function parseTolerance(text: string): number | string {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  const problem =
    toleranceProblem(value) ?? (value > MAX_TOLERANCE_SECONDS ? `must be at most ${MAX_TOLERANCE_SECONDS}` : undefined);
  return problem === undefined ? value : `"${text.slice(0, 40)}" ${problem}`;
}

export const formatRateLimit = (rate: RateLimit): string => `${rate.requests}/${rate.windowSeconds}`;

/** A rate as requests per second, to compare two of them. */
export const perSecond = (rate: RateLimit): number => rate.requests / rate.windowSeconds;

/** What each of these settings is when it is not set. */
export const SERVICE_SETTING_DEFAULTS = {
  pageLimit: String(DEFAULT_PAGE_LIMIT),
  lag: '0s',
  tolerance: String(DEFAULT_TOLERANCE_SECONDS),
} as const;

const PARSERS: Record<string, (text: string) => unknown> = {
  pageLimit: parsePageLimit,
  lag: parseLag,
  maxStampAhead: parseMaxStampAhead,
  rateLimit: parseRateLimit,
  tolerance: parseTolerance,
};

export const isServiceSettingKey = (key: string): boolean => Object.hasOwn(PARSERS, key);

/** What is wrong with a value for one of these settings (`config set` refuses it), or undefined. */
export function serviceSettingProblem(key: string, value: string): string | undefined {
  const parsed = isServiceSettingKey(key) ? PARSERS[key]?.(value) : undefined;
  return typeof parsed === 'string' ? parsed : undefined;
}
