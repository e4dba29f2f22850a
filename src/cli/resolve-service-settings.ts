import { DEFAULT_MAX_STAMP_AHEAD_MS, DEFAULT_PAGE_LIMIT, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { usageError } from '../errors.js';
import type { SettingKey } from '../settings/environments.js';
import {
  parseLag,
  parseMaxStampAhead,
  parsePageLimit,
  parseRateLimit,
  parseTolerance,
  type RateLimit,
} from '../settings/setting-values.js';
import type { CliContext } from './context.js';
import { resolveExpiredCursorStatuses } from './resolve-dataset.js';
import { resolveEnvironment, settingsStore } from './resolve-settings.js';

/*
 * The settings for what the spec leaves open about the service (`ledgerhook probe --write` finds
 * them): each command's flag first, then the setting stored for the environment, then the default.
 */

type Flags = { env?: string | undefined };

/** The stored value of a setting, parsed; a value that does not parse is refused naming the setting. */
async function stored<T>(
  flags: Flags,
  ctx: CliContext,
  key: SettingKey,
  parse: (text: string) => T | string,
  example: string,
) {
  const env = await resolveEnvironment(flags.env, ctx);
  const text = (await settingsStore(ctx)).get(env, key);
  if (text === undefined) return undefined;
  const value = parse(text);
  if (typeof value === 'string')
    throw usageError(
      `the stored ${key} for ${env}: ${value}; set it again with \`ledgerhook config set ${key} ${example} --env ${env}\` (or \`ledgerhook probe --write\`)`,
      'invalid_setting',
    );
  return value;
}

/** --limit, else the stored pageLimit, else 100. */
export async function resolvePageLimit(
  flags: Flags & { limit?: number | undefined },
  ctx: CliContext,
): Promise<number> {
  return flags.limit ?? (await stored(flags, ctx, 'pageLimit', parsePageLimit, '100')) ?? DEFAULT_PAGE_LIMIT;
}

/** --lag (sync), else the stored lag, else 0. */
export async function resolveLag(flags: Flags & { lag?: number | undefined }, ctx: CliContext): Promise<number> {
  return flags.lag ?? (await stored(flags, ctx, 'lag', parseLag, '1s')) ?? 0;
}

/** "1000/300" → 1000 requests per 300 seconds (--rate-limit; the rateLimit setting reads the same). */
export function parseRateLimitFlag(text: string): RateLimit {
  const rate = parseRateLimit(text);
  if (typeof rate === 'string')
    throw usageError(`--rate-limit takes REQUESTS/SECONDS, e.g. 1000/300, got "${text}"`, 'invalid_flag_value');
  return rate;
}

/** --rate-limit (worker), else the stored rateLimit, else none. */
export async function resolveRateLimit(
  flags: Flags & { rateLimit?: string | undefined },
  ctx: CliContext,
): Promise<RateLimit | undefined> {
  if (flags.rateLimit !== undefined) return parseRateLimitFlag(flags.rateLimit);
  return stored(flags, ctx, 'rateLimit', parseRateLimit, '600/60');
}

/** The stored maxStampAhead, else a day: how far the server's lastUpdatedDate may run ahead of its clock. */
export async function resolveMaxStampAhead(flags: Flags, ctx: CliContext): Promise<number> {
  return (await stored(flags, ctx, 'maxStampAhead', parseMaxStampAhead, '48h')) ?? DEFAULT_MAX_STAMP_AHEAD_MS;
}

/** --tolerance, else the stored tolerance, else 300 (spec 5.2). */
export async function resolveTolerance(
  flags: Flags & { tolerance?: number | undefined },
  ctx: CliContext,
): Promise<number> {
  return flags.tolerance ?? (await stored(flags, ctx, 'tolerance', parseTolerance, '600')) ?? DEFAULT_TOLERANCE_SECONDS;
}

/**
 * What a sync's reads take from the flags and the stored settings (sync, listen --sync and worker
 * alike): the page size, the lag, how far a stamp may run ahead, the statuses that mean an expired
 * cursor, and the rate (a dispatcher keeps it: rateDispatcher).
 */
export async function resolveReadSettings(
  flags: Flags & { limit?: number | undefined; lag?: number | undefined; rateLimit?: string | undefined },
  ctx: CliContext,
) {
  return {
    expiredCursorStatuses: await resolveExpiredCursorStatuses(flags, ctx),
    limit: await resolvePageLimit(flags, ctx),
    lagMs: await resolveLag(flags, ctx),
    maxStampAheadMs: await resolveMaxStampAhead(flags, ctx),
    rateLimit: await resolveRateLimit(flags, ctx),
  };
}

/** A dispatcher that keeps this process's requests within the rate (undici loaded only when there is one). */
export async function rateDispatcher(rate: RateLimit | undefined, ctx: CliContext) {
  if (rate === undefined) return undefined;
  const { pacedDispatcher } = await import('../http/gated-dispatcher.js');
  return pacedDispatcher(rate, ctx.signal);
}
