/**
 * http/: every HTTP edge of the library, client and server.
 *   fetch-json.ts      bounded, timed GET with retries (this file); one attempt and what its answer
 *                      means in fetch-attempt.ts, its options in fetch-json-options.ts
 *   retry-policy.ts    how hard the client tries (429 and 5xx ridden out, Retry-After honoured)
 *   serve.ts           listen, port, URL and close for every server
 *   load-undici.ts     undici loaded on the first request; gated-dispatcher.ts, request-rate.ts: the
 *                      `rateLimit` setting; error-body.ts, network-error.ts: failures in words
 */
import { HttpStatusError, LedgerhookError } from '../errors.js';
import { backoffWait } from '../util/backoff.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY } from './retry-policy.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../defaults.js';
import { delay } from '../util/delay.js';
import { formatDuration } from '../util/duration.js';
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

/**
 * A JSON answer: the document, the bytes it was parsed from (a full read writes its items' bytes as
 * they stand) and the server's clock, its Date header as sent (the sync judges stamps by it).
 */
export interface JsonAnswer {
  body: unknown;
  bytes: Buffer;
  date?: string | undefined;
}

/**
 * GETs a JSON document, retrying 429 (honouring Retry-After), 5xx, connection errors, timeouts and
 * truncated bodies with exponential backoff and jitter (the latter at most `maxAttempts` times).
 *
 * One request, its retries and the waits between them end within the later of `timeoutMs` and the
 * policy's `maxWaitMs` from its start: no retry begins once `maxWaitMs` has gone by (or would be gone
 * by its wait), and a retry's own timeout is cut to what is left. Each attempt's timeout covers the
 * whole answer, headers and body (a server trickling bytes does not stretch it).
 */
export async function fetchJson(options: FetchJsonOptions): Promise<JsonAnswer> {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const budget = policy.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const schedule = { firstMs: policy.baseDelayMs, capMs: policy.maxDelayMs };
  let started = now();
  let waited = 0;
  // Time gone: the clock's, or the waits' where the clock or the sleep is a stand-in that does not move.
  const spent = () => Math.max(waited, now() - started);
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    const shared = options.backoff?.waitMs(now()) ?? 0;
    if (shared > 0) await sleep(shared, options.signal);
    // The request's clock starts with its first attempt: a pause another request's 429 asked for
    // before it is that request's waiting, not this one's.
    if (attemptNumber === 1) started = now();
    const deadline = started + Math.max(timeoutMs, budget);
    const left = Math.max(1, deadline - now());
    const result = await attempt(left < timeoutMs ? { ...options, timeoutMs: left } : options);
    if (result.ok) return { body: result.body, bytes: result.bytes, date: result.date };
    const status = result.error instanceof HttpStatusError ? result.error.status : undefined;
    // A rate limit or a server error is ridden out within the wait budget, not a count of attempts.
    const slow = result.retryable && status !== undefined && (status === 429 || status >= 500);
    if (slow) {
      let waitMs = result.retryAfterMs ?? backoffWait(attemptNumber, schedule, options.random);
      if (result.retryAfterMs !== undefined && spent() + waitMs > budget)
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message}: the server asks to wait ${Math.ceil(waitMs / 1000)} s (Retry-After), past the ${Math.round(budget / 1000)} s wait budget (${Math.round(spent() / 1000)} s spent already); stopped`,
          {
            cause: result.error,
            details: { ...result.error.details, reason: 'retry_after_too_long', waitMs, maxWaitMs: budget, status },
          },
        );
      if (spent() + waitMs > budget)
        throw new LedgerhookError(
          result.error.code,
          `${result.error.message} (gave up after ${attemptNumber} attempts and ${Math.round(spent() / 1000)} s of waiting, the ${Math.round(budget / 1000)} s wait budget)`,
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
    let waitMs = backoffWait(attemptNumber, schedule, options.random);
    // Past its attempts, or past the wait budget: a timeout does not get five more of itself.
    const pastBudget = result.retryable && spent() + waitMs >= budget;
    if (!result.retryable || attemptNumber >= policy.maxAttempts || pastBudget) {
      if (result.retryable && (attemptNumber > 1 || pastBudget)) {
        const why = pastBudget
          ? `${attemptNumber === 1 ? 'not retried' : `gave up after ${attemptNumber} attempts`} in ${(spent() / 1000).toFixed(1)} s: no retry past the ${formatDuration(budget)} wait budget`
          : `gave up after ${attemptNumber} attempts`;
        throw new LedgerhookError(result.error.code, `${result.error.message} (${why})`, {
          cause: result.error,
          details: { ...result.error.details, attempts: attemptNumber, ...(pastBudget ? { maxWaitMs: budget } : {}) },
        });
      }
      throw result.error;
    }
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
    waited += waitMs;
  }
}
