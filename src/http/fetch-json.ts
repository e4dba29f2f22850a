import { HttpStatusError, LedgerhookError } from '../errors.js';
import { backoffWait } from '../util/backoff.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY } from './retry-policy.js';
import { delay } from '../util/delay.js';
import { aborted, attempt } from './fetch-attempt.js';
import type { FetchJsonOptions } from './fetch-json-options.js';

export type { FetchJsonOptions } from './fetch-json-options.js';

/** A wait that keeps the process alive: for a request waiting to be retried or for its turn. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  // delay() never keeps the process alive; a request waiting to be retried must (else the CLI
  // would exit 0 in the middle of a sync), so a plain timer of the same length holds it.
  const hold = setTimeout(() => {}, ms);
  try {
    await delay(ms, signal);
  } catch (error) {
    throw aborted(error);
  } finally {
    clearTimeout(hold);
  }
}

/** A JSON answer: the document, and the bytes it was parsed from (a full read writes its items' as they stand). */
export interface JsonAnswer {
  body: unknown;
  bytes: Buffer;
}

/**
 * GETs a JSON document, retrying 429 (honouring Retry-After), 5xx, connection errors and
 * truncated bodies with exponential backoff and jitter, at most `maxAttempts` times.
 */
export async function fetchJson(options: FetchJsonOptions): Promise<JsonAnswer> {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const budget = policy.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const schedule = { firstMs: policy.baseDelayMs, capMs: policy.maxDelayMs };
  let waited = 0;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    const shared = options.backoff?.waitMs(now()) ?? 0;
    if (shared > 0) await sleep(shared, options.signal);
    const result = await attempt(options);
    if (result.ok) return { body: result.body, bytes: result.bytes };
    const status = result.error instanceof HttpStatusError ? result.error.status : undefined;
    // A rate limit or a server error is ridden out within the wait budget, not a count of attempts.
    const slow = result.retryable && status !== undefined && (status === 429 || status >= 500);
    if (slow) {
      let waitMs = result.retryAfterMs ?? backoffWait(attemptNumber, schedule, options.random);
      if (result.retryAfterMs !== undefined && waited + waitMs > budget)
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message}: the server asks to wait ${Math.ceil(waitMs / 1000)} s (Retry-After), past the ${Math.round(budget / 1000)} s wait budget (${Math.round(waited / 1000)} s waited already); stopped`,
          {
            cause: result.error,
            details: { ...result.error.details, reason: 'retry_after_too_long', waitMs, maxWaitMs: budget, status },
          },
        );
      if (waited + waitMs > budget)
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message} (gave up after ${attemptNumber} attempts and ${Math.round(waited / 1000)} s of waiting, the ${Math.round(budget / 1000)} s wait budget)`,
          {
            cause: result.error,
            details: {
              ...result.error.details,
              reason: 'wait_budget_spent',
              attempts: attemptNumber,
              maxWaitMs: budget,
              status,
            },
          },
        );
      waitMs = Math.max(0, waitMs);
      if (result.retryAfterMs !== undefined) options.backoff?.pauseUntil(now() + waitMs);
      options.onRetry?.({ attempt: attemptNumber, waitMs, reason: result.error.message, rateLimited: status === 429 });
      await sleep(waitMs, options.signal);
      waited += waitMs;
      continue;
    }
    if (!result.retryable || attemptNumber >= policy.maxAttempts) {
      if (result.retryable && attemptNumber > 1) {
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message} (gave up after ${attemptNumber} attempts)`,
          {
            cause: result.error,
            details: { ...result.error.details, attempts: attemptNumber },
          },
        );
      }
      throw result.error;
    }
    let waitMs = backoffWait(attemptNumber, schedule, options.random);
    if (result.retryAfterMs !== undefined) {
      if (result.retryAfterMs > policy.maxDelayMs) {
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message}: the server asks to wait ${Math.ceil(result.retryAfterMs / 1000)}s (Retry-After), longer than the ${policy.maxDelayMs / 1000}s this client waits; try again later`,
          { cause: result.error, details: { reason: 'retry_after_too_long', waitMs: result.retryAfterMs } },
        );
      }
      waitMs = result.retryAfterMs;
      options.backoff?.pauseUntil(now() + waitMs);
    }
    options.onRetry?.({ attempt: attemptNumber, waitMs, reason: result.error.message });
    await sleep(waitMs, options.signal);
  }
}
