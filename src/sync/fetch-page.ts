import { request, type Dispatcher } from 'undici';
import { HttpStatusError, LedgerhookError } from '../errors.js';
import { networkError } from '../http/network-error.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy, type SharedBackoff } from './retry-policy.js';

export interface FetchJsonOptions {
  url: URL;
  headers: Record<string, string>;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  backoff?: SharedBackoff;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  timeoutMs?: number;
  onRetry?: (event: { attempt: number; waitMs: number; reason: string }) => void;
}

/** Waits, or rejects with ERR_ABORTED as soon as the signal fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LedgerhookError('ERR_ABORTED', 'stopped'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LedgerhookError('ERR_ABORTED', 'stopped'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Attempt = { ok: true; body: unknown } | { ok: false; retryable: boolean; error: LedgerhookError; retryAfterMs?: number };

const MAX_ERROR_BODY = 2000;

async function attempt(options: FetchJsonOptions): Promise<Attempt> {
  const method = 'GET';
  const href = options.url.href;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response;
  try {
    response = await request(options.url, { method, headers: options.headers, signal, ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}) });
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, retryable: false, error: new LedgerhookError('ERR_ABORTED', 'stopped', { cause: error }) };
    const described = networkError(timeout.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error, method, options.url, options.timeoutMs ?? 60_000);
    return { ok: false, retryable: true, error: described };
  }
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, retryable: false, error: new LedgerhookError('ERR_ABORTED', 'stopped', { cause: error }) };
    // The connection broke in the middle of the body: a truncated answer, worth another try.
    return { ok: false, retryable: true, error: networkError(error, method, options.url) };
  }
  const status = response.statusCode;
  if (status === 200) {
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      // A cut-off body on a 200: retried, since the next answer is usually whole.
      return { ok: false, retryable: true, error: new LedgerhookError('ERR_BAD_RESPONSE', `${method} ${href} answered 200 with a body that is not JSON (${text.length} bytes${text.length ? `, starting ${JSON.stringify(text.slice(0, 40))}` : ''})`) };
    }
  }
  const body = text.slice(0, MAX_ERROR_BODY);
  if (status === 429) {
    const retryAfter = response.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, (options.now ?? Date.now)());
    return { ok: false, retryable: true, error: new HttpStatusError(method, href, status, body, 'rate limited'), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (status >= 500) return { ok: false, retryable: true, error: new HttpStatusError(method, href, status, body) };
  if (status === 401) return { ok: false, retryable: false, error: new HttpStatusError(method, href, status, body, 'the access token was rejected; check --token, LEDGERHOOK_TOKEN or `ledgerhook config set token`') };
  return { ok: false, retryable: false, error: new HttpStatusError(method, href, status, body) };
}

/**
 * GETs a JSON document, retrying 429 (honouring Retry-After), 5xx, connection errors and
 * truncated bodies with exponential backoff and jitter, at most `maxAttempts` times.
 */
export async function fetchJson(options: FetchJsonOptions): Promise<unknown> {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    const shared = options.backoff?.waitMs(now()) ?? 0;
    if (shared > 0) await sleep(shared, options.signal);
    const result = await attempt(options);
    if (result.ok) return result.body;
    if (!result.retryable || attemptNumber >= policy.maxAttempts) {
      if (result.retryable && attemptNumber > 1) {
        throw new LedgerhookError(result.error.code, `${result.error.message} (gave up after ${attemptNumber} attempts)`, { cause: result.error });
      }
      throw result.error;
    }
    let waitMs = backoffDelay(policy, attemptNumber - 1, options.random);
    if (result.retryAfterMs !== undefined) {
      if (result.retryAfterMs > policy.maxDelayMs) {
        throw new LedgerhookError(result.error.code, `${result.error.message}: the server asks to wait ${Math.ceil(result.retryAfterMs / 1000)}s (Retry-After), longer than the ${policy.maxDelayMs / 1000}s this client waits; run again later`, { cause: result.error });
      }
      waitMs = result.retryAfterMs;
      options.backoff?.pauseUntil(now() + waitMs);
    }
    options.onRetry?.({ attempt: attemptNumber, waitMs, reason: result.error.message });
    await sleep(waitMs, options.signal);
  }
}
