/**
 * A bookkeeping API written from spec 4.2/4.3 alone (node:http, no ledgerhook code), NOT the mock,
 * with the habits a real service may have where the spec says "not shown", each switched on by the
 * test: the expense list at /expenses/expenses only, a maximum page size (400 above it, or pages
 * silently clamped), whole-second lastUpdatedDate compared with a strict `>`, offsets instead of Z,
 * `cursor: null` or `""` on a last page, single-use cursors, a rate limit (429 with or without
 * Retry-After) and its headers, HTML error pages, a skewed Date header. Its clock is the test's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Quirks {
  token?: string;
  /** The API root's path (default /api/v2: nothing assumes /rest/v5). */
  root?: string;
  /** Where the expense list lives (default /expenses). */
  expensePath?: string;
  /** Page size without a limit header (default 25). */
  defaultLimit?: number;
  /** Larger limits answer 400 saying so. */
  maxLimit?: number;
  /** Larger limits are silently cut to this. */
  clampAt?: number;
  /** lastUpdatedDate in whole seconds, compared with a strict `>` at whole seconds. */
  seconds?: boolean;
  /** How lastUpdatedDate ends: Z (default), +00:00, or no zone. */
  zone?: 'Z' | '+00:00' | 'none';
  /** How the last page ends: no cursor field (default), `cursor: null`, `cursor: ""`. */
  cursorEnd?: 'absent' | 'null' | 'empty';
  /** A cursor sent a second time answers this status. */
  singleUseCursors?: number;
  /** 429 past `requests` per `windowMs` (on the server's clock), with Retry-After or without. */
  throttle?: { requests: number; windowMs: number; retryAfter: boolean };
  /** Rate-limit headers on every answer, stating `rate` (default: the throttle's). */
  rateHeaders?: 'x' | 'ietf' | 'kong';
  rate?: { requests: number; windowSeconds: number };
  /** Error answers as HTML pages instead of JSON. */
  html?: boolean;
  /** The status of a request with a wrong token (default 401). */
  authStatus?: 401 | 403;
  /** Lists this token may not read (403), the others answering. */
  forbidden?: string[];
  /** The Date header is this far from the real clock. */
  skewMs?: number;
  /** Expenses (default 60). */
  items?: number;
  /** The server's clock (default Date.now); the test moves it. */
  now?: () => number;
}

type Item = { id: number; type: string; amount: number };
const OTHER_LISTS = [
  '/attachments',
  '/bankAccounts',
  '/bankTransfers',
  '/businesses',
  '/clients',
  '/expenses/categories',
  '/expenses/rules',
  '/glAccounts',
  '/glEntries',
  '/integrations',
  '/invoices',
  '/invoiceSetup',
  '/payments',
  '/expenses/personalCategories',
  '/plaidItems',
  '/revenues',
  '/revenueRules',
  '/tasks',
  '/taxEstimates',
  '/taxPayments',
  '/times',
  '/vendors',
];

export async function startQuirkyServer(quirks: Quirks = {}) {
  const token = quirks.token ?? 'quirky-token';
  const root = quirks.root ?? '/api/v2';
  const expensePath = quirks.expensePath ?? '/expenses';
  const now = quirks.now ?? Date.now;
  const expenses = new Map<number, { item: Item | null; at: number }>();
  const start = now() - 60_000;
  for (let id = 1; id <= (quirks.items ?? 60); id += 1)
    expenses.set(id, { item: { id, type: id % 2 ? 'PENDING' : 'BUSINESS', amount: id }, at: start });
  const used = new Set<string>();
  let requests = 0;
  let issued = 0;
  let window = { start: now(), count: 0 };
  const rate =
    quirks.rate ??
    (quirks.throttle
      ? { requests: quirks.throttle.requests, windowSeconds: quirks.throttle.windowMs / 1000 }
      : undefined);

  const stamp = (ms: number) => {
    const iso = new Date(quirks.seconds ? Math.floor(ms / 1000) * 1000 : ms).toISOString();
    const written = quirks.seconds ? iso.replace('.000Z', 'Z') : iso;
    return quirks.zone === '+00:00'
      ? written.replace('Z', '+00:00')
      : quirks.zone === 'none'
        ? written.replace('Z', '')
        : written;
  };
  const parseStamp = (text: string) => Date.parse(/[Z+-]\d\d:?\d\d$|Z$/.test(text) ? text : `${text}Z`);
  const changedAfter = (at: number, since: number) =>
    quirks.seconds ? Math.floor(at / 1000) > Math.floor(since / 1000) : at > since;

  const log: Array<{ path: string; limit: string | undefined; at: number }> = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests += 1;
    const limitHeader = request.headers.limit;
    log.push({
      path: request.url ?? '',
      limit: typeof limitHeader === 'string' ? limitHeader : undefined,
      at: Date.now(),
    });
    const headers: Record<string, string> = {};
    if (quirks.skewMs !== undefined) headers.date = new Date(Date.now() + quirks.skewMs).toUTCString();
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const fail = (status: number, message: string) => {
      if (!quirks.html) return send(status, { error: status === 404 ? 'not_found' : 'bad_request', message });
      const title = `${status} ${status === 404 ? 'Not Found' : status === 401 ? 'Unauthorized' : 'Bad Request'}`;
      response
        .writeHead(status, { 'content-type': 'text/html', ...headers })
        .end(
          `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${message}</p><hr><center>nginx</center></body></html>`,
        );
    };
    // The rate limit first, as a gateway in front of the service applies it.
    if (quirks.throttle) {
      const t = now();
      if (t - window.start >= quirks.throttle.windowMs) window = { start: t, count: 0 };
      window.count += 1;
      if (rate && quirks.rateHeaders)
        rateHeaders(headers, quirks.rateHeaders, rate, window.count, window.start + quirks.throttle.windowMs - t);
      if (window.count > quirks.throttle.requests) {
        if (quirks.throttle.retryAfter)
          headers['retry-after'] = String(Math.max(1, Math.ceil((window.start + quirks.throttle.windowMs - t) / 1000)));
        return send(429, { error: 'too_many_requests' });
      }
    } else if (rate && quirks.rateHeaders) rateHeaders(headers, quirks.rateHeaders, rate, 1, rate.windowSeconds * 1000);
    if (request.headers.authorization !== `Bearer ${token}`)
      return fail(quirks.authStatus ?? 401, 'invalid access token');
    const url = new URL(request.url ?? '/', 'http://x');
    if (!url.pathname.startsWith(`${root}/`)) return fail(404, `no route ${url.pathname}`);
    const path = url.pathname.slice(root.length);
    if (path === '/userTaxSetup') return send(200, { id: 1, filingStatus: 'single', lastUpdatedAt: stamp(start) });
    if (quirks.forbidden?.includes(path)) return fail(403, 'not allowed for this token');
    const isExpense = path === expensePath;
    if (!isExpense && !OTHER_LISTS.includes(path)) return fail(404, `no route ${url.pathname}`);
    let limit = Number(request.headers.limit ?? quirks.defaultLimit ?? 25);
    if (!Number.isInteger(limit) || limit < 1) return fail(400, 'limit must be a positive integer');
    if (quirks.maxLimit !== undefined && limit > quirks.maxLimit)
      return fail(400, `limit must be at most ${quirks.maxLimit}`);
    if (quirks.clampAt !== undefined) limit = Math.min(limit, quirks.clampAt);
    const cursorText = request.headers.cursor;
    let offset = 0;
    if (typeof cursorText === 'string') {
      const decoded = /^c(\d+)\.([a-z/A-Z]+)\.\d+$/.exec(cursorText);
      if (!decoded || decoded[2] !== path) return fail(400, 'invalid cursor');
      if (quirks.singleUseCursors !== undefined && used.has(cursorText))
        return fail(quirks.singleUseCursors, 'cursor already used');
      used.add(cursorText);
      offset = Number(decoded[1]);
    }
    const sinceText = request.headers.lastupdateddate;
    const since = typeof sinceText === 'string' ? parseStamp(sinceText) : undefined;
    if (since !== undefined && Number.isNaN(since)) return fail(400, 'lastUpdatedDate is not a date');
    const type = url.searchParams.get('type');
    const matches = (item: Item | null): item is Item => item !== null && (type === null || item.type === type);
    const entries = isExpense
      ? [...expenses.values()]
      : [1, 2, 3].map((id) => ({ item: { id, type: 'OTHER', amount: id } as Item, at: start }));
    const changed = entries.filter((entry) => since === undefined || changedAfter(entry.at, since));
    const live = changed.flatMap((entry) => (matches(entry.item) ? [entry.item] : [])).sort((a, b) => a.id - b.id);
    const body: Record<string, unknown> = { data: live.slice(offset, offset + limit), lastUpdatedDate: stamp(now()) };
    // Each cursor issued is a new one (a serial number in it), as a single-use cursor would be.
    if (offset + limit < live.length) {
      issued += 1;
      body.cursor = `c${offset + limit}.${path}.${issued}`;
    } else if (quirks.cursorEnd === 'null') body.cursor = null;
    else if (quirks.cursorEnd === 'empty') body.cursor = '';
    if (since !== undefined && offset === 0 && isExpense) {
      const gone = [...expenses.entries()].filter(([, entry]) => changedAfter(entry.at, since) && !matches(entry.item));
      if (gone.length > 0) body.deletedIds = gone.map(([id]) => id);
    }
    send(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}${root}`,
    token,
    requests: () => requests,
    /** Every request: its path and query, its limit header, when it came (the real clock). */
    log: () => [...log],
    /** The current expenses (matching the type if given), by id. */
    truth: (type?: string) =>
      [...expenses.values()]
        .flatMap((entry) => (entry.item && (type === undefined || entry.item.type === type) ? [entry.item] : []))
        .sort((a, b) => a.id - b.id),
    /** Changes an expense at the server's current time (null deletes it). */
    edit(id: number, change: Partial<Item> | null) {
      const item = expenses.get(id)?.item ?? { id, type: 'PENDING', amount: 0 };
      expenses.set(id, { item: change === null ? null : { ...item, ...change }, at: now() });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function rateHeaders(
  headers: Record<string, string>,
  kind: 'x' | 'ietf' | 'kong',
  rate: { requests: number; windowSeconds: number },
  count: number,
  resetMs: number,
): void {
  const remaining = String(Math.max(0, rate.requests - count));
  const reset = String(Math.max(1, Math.ceil(resetMs / 1000)));
  if (kind === 'x') {
    headers['x-ratelimit-limit'] = String(rate.requests);
    headers['x-ratelimit-remaining'] = remaining;
    headers['x-ratelimit-reset'] = reset;
  } else if (kind === 'ietf') {
    headers['ratelimit-policy'] = `${rate.requests};w=${rate.windowSeconds}`;
    headers.ratelimit = `limit=${rate.requests}, remaining=${remaining}, reset=${reset}`;
  } else headers[`x-ratelimit-limit-${rate.windowSeconds === 60 ? 'minute' : 'second'}`] = String(rate.requests);
}
