/**
 * Waits between retries, for every retrying caller: the HTTP client's 429/5xx and connection errors,
 * the webhook-driven syncs' and the queue's transient failures. Retry `retry` (1, 2, ...) waits a
 * random time below a base that doubles from firstMs and stops at capMs: full jitter ("Exponential
 * Backoff and Jitter", AWS Architecture Blog), so that clients failing together (the workers sharing
 * a token, the jobs of one outage) spread their retries instead of arriving in waves.
 */
export interface BackoffSchedule {
  /** The first retry's base; default 2 s. */
  firstMs?: number | undefined;
  /** No wait is longer than this; default 60 s. */
  capMs?: number | undefined;
}

export function backoffWait(retry: number, schedule: BackoffSchedule = {}, random: () => number = Math.random): number {
  const first = schedule.firstMs ?? 2000;
  const cap = schedule.capMs ?? 60_000;
  const base = Math.min(cap, first * 2 ** Math.min(Math.max(retry - 1, 0), 30));
  return Math.floor(random() * base);
}
