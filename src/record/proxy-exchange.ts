import type { Redactor } from '../redact/redactor.js';
import { CONNECTION_HEADERS } from '../util/header-name.js';
import type { RecordedExchange, RecordedPaging } from './recording-format.js';

/**
 * The recording proxy's decisions as plain functions: where a request goes (only ever to the base
 * URL's origin, under its path), which headers travel, and what of the exchange is written down.
 * The node:http side (recording-proxy.ts) only moves bytes.
 */

export interface ProxyRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** Lower-case names (node:http's `req.headers`). */
  headers: Record<string, string | string[] | undefined>;
}

export type ForwardPlan =
  | { ok: true; upstream: URL; path: string; query: string; headers: Record<string, string> }
  | { ok: false; status: number; body: { error: string; message: string }; headers?: Record<string, string> };

/** Never forwarded: they belong to one connection, or to the proxy itself. */
const HOP_BY_HOP = new Set([
  ...CONNECTION_HEADERS,
  'proxy-authorization',
  // The answer is recorded: the service must send it as plain bytes, not compressed.
  'accept-encoding',
]);

/** The base URL's path without a trailing slash ('' for the root). */
export function basePathOf(base: URL): string {
  return base.pathname.replace(/\/+$/, '');
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Where a request to the proxy goes: GET list requests under the base path, to the base URL's origin only. */
export function planForward(request: ProxyRequest, base: URL): ForwardPlan {
  if (request.method !== 'GET')
    return {
      ok: false,
      status: 405,
      body: { error: 'method_not_allowed', message: 'the recording proxy forwards the list endpoints (GET) only' },
      headers: { allow: 'GET' },
    };
  // Dot segments are resolved here, so that /rest/v5/../admin is judged as /admin.
  const parsed = new URL(request.url, 'http://proxy.invalid');
  const basePath = basePathOf(base);
  if (basePath !== '' && parsed.pathname !== basePath && !parsed.pathname.startsWith(`${basePath}/`))
    return {
      ok: false,
      status: 404,
      body: { error: 'not_found', message: `the recording proxy forwards paths under ${basePath}/ only` },
    };
  const upstream = new URL(base.origin);
  upstream.pathname = parsed.pathname;
  upstream.search = parsed.search;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const path = parsed.pathname.slice(basePath.length) || '/';
  return { ok: true, upstream, path, query: parsed.search.replace(/^\?/, ''), headers };
}

/** Spec 4.3's paging headers, as sent; the Authorization header is never among them. */
export function pagingOf(headers: ProxyRequest['headers']): RecordedPaging {
  const paging: RecordedPaging = {};
  const limit = first(headers.limit);
  const cursor = first(headers.cursor);
  const since = first(headers.lastupdateddate);
  if (limit !== undefined) paging.limit = limit;
  if (cursor !== undefined) paging.cursor = cursor;
  if (since !== undefined) paging.lastUpdatedDate = since;
  return paging;
}

/** The answer's headers worth keeping: what a client's behaviour depends on, never a cookie. */
const KEPT_HEADERS = /^(content-type|retry-after|location|www-authenticate|(x-)?rate-?limit[a-z0-9-]*)$/;
const MAX_HEADER_VALUE = 1000;
const TEXT_HEAD = 4096;

export interface AnswerFacts {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as the service sent them (decoded, when it compressed them anyway). */
  body: Buffer | undefined;
  bodyBytes: number;
  error?: string | undefined;
}

/** A query parameter that carries a credential (some clients send their token in the URL): never recorded. */
const CREDENTIAL_PARAM =
  /^(access[_-]?token|token|api[_-]?key|apikey|key|secret|client[_-]?secret|password|auth|signature|sig)$/i;

/** The query's values, redacted as text (a filter may carry an e-mail address too); credentials left out. */
function redactQuery(query: string, redactor: Redactor): string {
  if (query === '') return '';
  const params = new URLSearchParams(query);
  const out = new URLSearchParams();
  for (const [name, value] of params) if (!CREDENTIAL_PARAM.test(name)) out.append(name, redactor.text(value));
  return out.toString();
}

/** The line of one exchange: what was asked, what came back, every personal value replaced first. */
export function exchangeLine(
  seq: number,
  at: number,
  ms: number,
  request: ProxyRequest,
  plan: Extract<ForwardPlan, { ok: true }>,
  answer: AnswerFacts,
  options: { redactor: Redactor; maxBodyBytes: number },
): RecordedExchange {
  const { redactor } = options;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    const text = first(value);
    if (text !== undefined && KEPT_HEADERS.test(name)) headers[name] = redactor.text(text.slice(0, MAX_HEADER_VALUE));
  }
  const line: RecordedExchange = {
    kind: 'exchange',
    seq,
    at: new Date(at).toISOString(),
    ms: Math.max(0, Math.round(ms)),
    method: request.method,
    path: redactor.text(plan.path),
    query: redactQuery(plan.query, redactor),
    request: pagingOf(request.headers),
    status: answer.status,
    headers,
    bodyBytes: answer.bodyBytes,
    redacted: 0,
  };
  if (answer.error !== undefined) line.error = answer.error;
  if (answer.body === undefined || answer.body.length === 0) return line;
  if (answer.body.length > options.maxBodyBytes) {
    line.bodyOmitted = true;
    return line;
  }
  const text = answer.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    line.text = redactor.text(text.slice(0, TEXT_HEAD));
    return line;
  }
  const redacted = redactor.json(parsed);
  line.body = redacted.value;
  line.redacted = redacted.replaced;
  return line;
}
