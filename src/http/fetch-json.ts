import type { Dispatcher } from 'undici';
import { loadUndici } from './load-undici.js';
import { HttpStatusError, LedgerhookError } from '../errors.js';
import {
  backoffDelay,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type RetryPolicy,
  type SharedBackoff,
} from './retry-policy.js';
import { delay } from '../util/delay.js';
import { networkError } from './network-error.js';

import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../defaults.js';

export interface FetchJsonOptions {
  url: URL;
  headers: Record<string, string>;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  retry?: RetryPolicy | undefined;
  backoff?: SharedBackoff | undefined;
  now?: (() => number) | undefined;
  random?: (() => number) | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Per request (each attempt), headers and body together. */
  timeoutMs?: number | undefined;
  maxResponseBytes?: number | undefined;
  onRetry?:
    | ((event: { attempt: number; waitMs: number; reason: string; rateLimited?: boolean | undefined }) => void)
    | undefined;
}

type Attempt =
  | { ok: true; body: unknown }
  | { ok: false; retryable: boolean; error: LedgerhookError; retryAfterMs?: number | undefined };

const MAX_ERROR_BODY = 2000;
const aborted = (cause?: unknown) => new LedgerhookError('ERR_ABORTED', 'stopped', { cause });

async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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

/** Reads the body up to `max` bytes; undefined when it is bigger (the connection is dropped). */
async function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(href: string, max: number): Attempt {
  return {
    ok: false,
    retryable: false,
    error: new LedgerhookError('ERR_BAD_RESPONSE', `GET ${href} answered more than ${max} bytes; not read further`, {
      details: { reason: 'response_too_large', url: href, maxBytes: max },
    }),
  };
}

async function attempt(options: FetchJsonOptions): Promise<Attempt> {
  const method = 'GET';
  const href = options.url.href;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const max = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { request } = await loadUndici(); // before the clock starts: the import is not the request's time
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Dispatcher.ResponseData;
  try {
    const base = { method, headers: options.headers, signal };
    response = await (options.dispatcher
      ? request(options.url, { ...base, dispatcher: options.dispatcher })
      : request(options.url, base));
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, retryable: false, error: aborted(error) };
    const cause = timeout.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error;
    return { ok: false, retryable: true, error: networkError(cause, method, options.url, timeoutMs) };
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    response.body.destroy();
    return tooLarge(href, max);
  }
  let text: string | undefined;
  try {
    text = await readCapped(response.body, max);
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, retryable: false, error: aborted(error) };
    const cause = timeout.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error;
    // The connection broke in the middle of the body: a truncated answer, worth another try.
    return { ok: false, retryable: true, error: networkError(cause, method, options.url, timeoutMs) };
  }
  if (text === undefined) return tooLarge(href, max);
  return interpret(options, response, text);
}

function interpret(options: FetchJsonOptions, response: Dispatcher.ResponseData, text: string): Attempt {
  const method = 'GET';
  const href = options.url.href;
  const status = response.statusCode;
  if (status === 200) {
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      // HTML (a login page, a proxy's error page) or any other non-JSON type is not a cut-off body:
      // asking again brings the same page, so it fails at once, saying what came.
      const type = String(response.headers['content-type'] ?? '');
      if ((type !== '' && !/json/i.test(type)) || /^\s*</.test(text))
        return {
          ok: false,
          retryable: false,
          error: new LedgerhookError(
            'ERR_BAD_RESPONSE',
            `${method} ${href} answered 200 with ${type === '' ? 'no content type' : type.slice(0, 80)}, not JSON (${text.length} bytes, starting ${JSON.stringify(text.slice(0, 60))})`,
            { details: { reason: 'body_not_json', url: href, contentType: type.slice(0, 80) } },
          ),
        };
      // A cut-off body on a 200: retried, since the next answer is usually whole.
      const start = text.length ? `, starting ${JSON.stringify(text.slice(0, 40))}` : '';
      return {
        ok: false,
        retryable: true,
        error: new LedgerhookError(
          'ERR_BAD_RESPONSE',
          `${method} ${href} answered 200 with a body that is not JSON (${text.length} bytes${start})`,
          { details: { reason: 'body_not_json', url: href } },
        ),
      };
    }
  }
  const body = text.slice(0, MAX_ERROR_BODY);
  if (status === 429) {
    const header = response.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header, (options.now ?? Date.now)());
    return {
      ok: false,
      retryable: true,
      error: new HttpStatusError(method, href, status, body, 'rate limited'),
      retryAfterMs,
    };
  }
  if (status >= 500) {
    // A 503 may say when to come back, as a 429 does (RFC 9110 10.2.3).
    const header = response.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header, (options.now ?? Date.now)());
    return { ok: false, retryable: true, error: new HttpStatusError(method, href, status, body), retryAfterMs };
  }
  if (status >= 300 && status < 400) {
    // Never followed: the Authorization header must not travel to another address. Said where it points.
    const location = String(response.headers.location ?? '').slice(0, 300);
    const error = new HttpStatusError(
      method,
      href,
      status,
      body,
      location
        ? `a redirect to ${JSON.stringify(location)}, not followed (the access token must not travel); the base URL should probably be that address`
        : 'a redirect without a Location, not followed',
    );
    error.details.reason = 'redirected';
    if (location) error.details.location = location;
    return { ok: false, retryable: false, error };
  }
  const error = new HttpStatusError(
    method,
    href,
    status,
    body,
    status === 401 ? 'the access token was rejected' : undefined,
  );
  if (status === 401) error.details.reason = 'token_rejected';
  return { ok: false, retryable: false, error };
}

/**
 * GETs a JSON document, retrying 429 (honouring Retry-After), 5xx, connection errors and
 * truncated bodies with exponential backoff and jitter, at most `maxAttempts` times.
 */
export async function fetchJson(options: FetchJsonOptions): Promise<unknown> {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const budget = policy.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  let waited = 0;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    const shared = options.backoff?.waitMs(now()) ?? 0;
    if (shared > 0) await sleep(shared, options.signal);
    const result = await attempt(options);
    if (result.ok) return result.body;
    const status = result.error instanceof HttpStatusError ? result.error.status : undefined;
    // A rate limit or a server error is ridden out within the wait budget, not a count of attempts.
    const slow = result.retryable && status !== undefined && (status === 429 || status >= 500);
    if (slow) {
      let waitMs = result.retryAfterMs ?? backoffDelay(policy, Math.min(attemptNumber - 1, 20), options.random);
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
    let waitMs = backoffDelay(policy, attemptNumber - 1, options.random);
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
