import type { Dispatcher } from 'undici';
import { loadUndici } from './load-undici.js';
import { HttpStatusError, LedgerhookError } from '../errors.js';
import { parseRetryAfter } from './retry-policy.js';
import { networkError } from './network-error.js';
import { describeBody } from './error-body.js';
import type { FetchJsonOptions } from './fetch-json-options.js';

import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../defaults.js';

/*
 * One GET of fetchJson (fetch-json.ts) and what its answer means: the document, or a failure that
 * says whether another attempt could succeed (and when the server asked to be asked again).
 */

export type Attempt =
  /** `bytes`: the body as received; `date`: the answer's Date header, as sent (the server's clock). */
  | { ok: true; body: unknown; bytes: Buffer; date?: string | undefined }
  | { ok: false; retryable: boolean; error: LedgerhookError; retryAfterMs?: number | undefined };

const MAX_ERROR_BODY = 2000;
export const aborted = (cause?: unknown) => new LedgerhookError('ERR_ABORTED', 'stopped', { cause });

/** Reads an answer's bytes up to `max`; undefined when it is bigger (the connection is dropped). */
export async function readCappedBytes(body: Dispatcher.ResponseData['body'], max: number): Promise<Buffer | undefined> {
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
  return Buffer.concat(chunks, size);
}

function tooLarge(href: string, max: number): ExchangeFailure {
  return {
    ok: false,
    retryable: false,
    error: new LedgerhookError('ERR_BAD_RESPONSE', `GET ${href} answered more than ${max} bytes; not read further`, {
      details: { reason: 'response_too_large', url: href, maxBytes: max },
    }),
  };
}

/** An answer read whole (within the size cap): what the server said, before anyone judges it. */
export interface Answer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  text: string;
  /** The bytes `text` was decoded from (a full read keeps its items' bytes as they stand). */
  bytes: Buffer;
}

/** A failure of the exchange itself (no answer, a cut-off or outsized one), as fetchJson retries it. */
export type ExchangeFailure = Extract<Attempt, { ok: false }>;

/**
 * One GET and its whole answer, whatever its status: the request, the timeout, the capped body
 * read. fetchJson judges the answer (`attempt`); `probe` looks at it as it is.
 */
export async function exchange(options: FetchJsonOptions): Promise<({ ok: true } & Answer) | ExchangeFailure> {
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
  let bytes: Buffer | undefined;
  try {
    bytes = await readCappedBytes(response.body, max);
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, retryable: false, error: aborted(error) };
    const cause = timeout.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error;
    // The connection broke in the middle of the body: a truncated answer, worth another try.
    return { ok: false, retryable: true, error: networkError(cause, method, options.url, timeoutMs) };
  }
  if (bytes === undefined) return tooLarge(href, max);
  return { ok: true, status: response.statusCode, headers: response.headers, text: bytes.toString('utf8'), bytes };
}

export async function attempt(options: FetchJsonOptions): Promise<Attempt> {
  const answer = await exchange(options);
  if (answer.ok && answer.status === 200) await options.beforeParse?.(answer.bytes);
  return answer.ok ? interpret(options, answer) : answer;
}

function interpret(options: FetchJsonOptions, response: Answer): Attempt {
  const method = 'GET';
  const text = response.text;
  const href = options.url.href;
  const status = response.status;
  if (status === 200) {
    try {
      const date = response.headers.date;
      return { ok: true, body: JSON.parse(text), bytes: response.bytes, date: Array.isArray(date) ? date[0] : date };
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
  // An HTML page (a gateway's, a framework's) is quoted by its title, not its markup.
  const page = describeBody(text, String(response.headers['content-type'] ?? ''));
  const html =
    page.shape === 'html' ? `an HTML page${page.summary ? ` (${JSON.stringify(page.summary)})` : ''}` : undefined;
  const error = new HttpStatusError(
    method,
    href,
    status,
    body,
    status === 401
      ? `the access token was rejected${html ? `; it answered ${html}` : ''}`
      : status === 403
        ? `the access token may not read this${html ? `; it answered ${html}` : ''}`
        : html,
  );
  // A page size the service refuses says so (spec 8 shows no maximum): the pageLimit setting.
  const limit = options.headers.limit;
  if ((status === 400 || status === 422) && limit !== undefined && /\blimit\b/i.test(body)) {
    error.details.reason = 'page_limit_refused';
    error.details.limit = Number(limit);
  }
  return { ok: false, retryable: false, error };
}
