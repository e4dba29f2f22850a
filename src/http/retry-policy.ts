/**
 * How hard the client tries before giving up. A rate limit (429) or a server error (5xx) is ridden
 * out: retried with the one backoff (util/backoff.ts: from baseDelayMs, doubling to maxDelayMs, full
 * jitter), honouring Retry-After, until `maxWaitMs` of waiting in all (a real rate window is minutes).
 * Other transient failures (a connection refused, a body cut off) get at most `maxAttempts` attempts.
 */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  /** No single backoff wait is longer than this (a Retry-After may be, within the budget). */
  maxDelayMs: number;
  /** Total waiting allowed for 429 and 5xx answers of one request (default 5 minutes). */
  maxWaitMs?: number | undefined;
}

export const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  maxWaitMs: DEFAULT_MAX_WAIT_MS,
};

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  // An HTTP-date names a day and month; anything else ("-1", "1.5") is not a Retry-After.
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * One pause shared by every dataset of a run: when the server rate-limits one request, every
 * request waits until the Retry-After has passed (the limit is per token, not per dataset).
 */
export class SharedBackoff {
  #until = 0;

  pauseUntil(time: number): void {
    this.#until = Math.max(this.#until, time);
  }

  waitMs(now: number): number {
    return Math.max(0, this.#until - now);
  }
}
