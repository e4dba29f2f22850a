import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ErrorReason } from '../error-reasons.js';
import { DEFAULT_PAGE_LIMIT } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { type FetchJsonOptions, fetchJson, type JsonAnswer } from '../http/fetch-json.js';
import { classifyBody, type EnvelopeQuirk, type ListPage } from '../dataset/envelope.js';
import { idKey } from '../dataset/item-id.js';
import { trailingCursor } from '../dataset/item-bytes.js';
import { AskedPage, RequestAhead } from './request-ahead.js';
import { noTelemetry, type Telemetry, traced } from '../telemetry/telemetry.js';

import { DEFAULT_MAX_PAGES } from '../defaults.js';
import { checkStampAhead } from './server-stamp.js';

const MAX_CURSOR = 4096;
const CURSOR = new RegExp(`^[\\x20-\\x7e]{1,${MAX_CURSOR}}$`);

/** Whether a cursor can go back as a request header: printable ASCII, at most 4 KiB. */
export const isSendableCursor = (cursor: string): boolean => CURSOR.test(cursor);

/** Pages in a row that bring nothing new (empty, or the ids of the page before) before the run stops. */
export const MAX_IDLE_PAGES = 10;

export interface PaginateOptions
  extends Pick<
    FetchJsonOptions,
    'dispatcher' | 'signal' | 'retry' | 'backoff' | 'now' | 'sleep' | 'onRetry' | 'timeoutMs' | 'maxResponseBytes'
  > {
  /** API root, e.g. https://sandbox.example.com/rest/v5 */
  baseUrl: string;
  token: string;
  /** Relative to the API root, e.g. /expenses */
  path: string;
  /** Query parameters (spec 4.3: the filter, e.g. type=PENDING). */
  filter?: Readonly<Record<string, string>> | undefined;
  limit?: number | undefined;
  /** The stored lastUpdatedDate of this dataset; omitted on a first sync. */
  lastUpdatedDate?: string | undefined;
  maxPages?: number | undefined;
  /**
   * Continue a read: the first request sends this cursor, and pages are numbered from
   * `firstIndex` (the pages read before), so that maxPages bounds the read as a whole.
   */
  cursor?: string | undefined;
  firstIndex?: number | undefined;
  /**
   * Whether a first answer that is not an envelope is a document (like /userTaxSetup) rather
   * than an error. Only for endpoints known to answer documents; default false.
   */
  allowDocument?: boolean | undefined;
  /** A span per page fetched (`ledgerhook.sync.page`, retries and waits included) and the pages metric. */
  telemetry?: Telemetry | undefined;
  /**
   * Awaited once the next page has come, before it is handed over and the one after it requested:
   * the caller's work on a page that goes on in the background (its checkpoint) overlaps the wait
   * for the next page, yet ends before the read is two pages past it, as when it was awaited.
   */
  beforeNext?: (() => Promise<unknown> | undefined) | undefined;
  /**
   * How far a page's lastUpdatedDate may be ahead of the server's clock (its Date header, else
   * `now`) before the read is refused (default DEFAULT_MAX_STAMP_AHEAD_MS, a day; server-stamp.ts).
   */
  maxStampAheadMs?: number | undefined;
}

export type PaginatedItem =
  | {
      kind: 'page';
      index: number;
      page: ListPage;
      quirk?: EnvelopeQuirk | undefined;
      /** The response's bytes, `page` as JSON.parse read it from them: a store may keep its items' as they stand. */
      bytes: Buffer;
    }
  /** The endpoint answered something that is not an envelope (e.g. /userTaxSetup). */
  | { kind: 'document'; body: unknown };

export function listUrl(baseUrl: string, path: string, filter: Readonly<Record<string, string>> = {}): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [key, value] of Object.entries(filter).sort(([a], [b]) => a.localeCompare(b)))
    url.searchParams.set(key, value);
  return url;
}

/**
 * The request headers of a list request, as spec 4.3's sample sends them: Authorization,
 * Content-Type, and `limit`, `cursor` and `lastUpdatedDate` when given.
 */
export function listHeaders(
  token: string,
  page: { limit?: number | undefined; cursor?: string | undefined; lastUpdatedDate?: string | undefined } = {},
): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (page.limit !== undefined) headers.limit = String(page.limit);
  if (page.cursor !== undefined) headers.cursor = page.cursor;
  if (page.lastUpdatedDate !== undefined) headers.lastUpdatedDate = page.lastUpdatedDate;
  return headers;
}

function badResponse(message: string, reason: ErrorReason, url: URL, facts: Record<string, unknown> = {}) {
  return new LedgerhookError('ERR_BAD_RESPONSE', message, { details: { reason, url: url.href, ...facts } });
}

/** Counts pages in a row that add nothing: an empty page, or one with exactly the ids of the page before. */
class IdleCounter {
  #previous: unknown[] = [];
  #idle = 0;

  /** Returns how many pages in a row brought nothing new. */
  see(page: ListPage): number {
    const ids = page.data.map((item) => item.id);
    // Compared id by id, stopping at the first that differs (the first, on a page that moves on):
    // one key per id of every page was a string per item for nothing.
    const previous = this.#previous;
    const same = ids.length === previous.length && ids.every((id, index) => idKey(id) === idKey(previous[index]));
    const idle = page.data.length === 0 || same;
    this.#previous = ids;
    this.#idle = idle ? this.#idle + 1 : 0;
    return this.#idle;
  }
}

/**
 * Every page of a dataset, as spec 4.3 describes the requests: GET with Authorization, the
 * `limit` header, `cursor` from the previous page (never on the first) and `lastUpdatedDate`
 * (when given). The last page is the one without a cursor. A cursor seen twice, more than
 * `maxPages` pages, or a run of pages that bring nothing new fails the run.
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PaginatedItem> {
  // The next page is always requested ahead: a caller that stops (a failure, a break) cancels it
  // rather than leaving it to run on; its rejection is swallowed (see pending.catch).
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    yield* pagesOf({ ...options, signal });
  } finally {
    stop.abort();
  }
}

async function* pagesOf(options: PaginateOptions & { signal: AbortSignal }): AsyncGenerator<PaginatedItem> {
  const url = listUrl(options.baseUrl, options.path, options.filter);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const telemetry = options.telemetry ?? noTelemetry;
  const firstIndex = options.firstIndex ?? 0;
  /** Page `index` (0-based), sent with `cursor`. */
  const fetchPage = (cursor: string | undefined, index: number, signal: AbortSignal = options.signal) => {
    const headers = listHeaders(options.token, {
      limit: options.limit ?? DEFAULT_PAGE_LIMIT,
      cursor,
      lastUpdatedDate: options.lastUpdatedDate,
    });
    const facts = { 'ledgerhook.sync.page': index + 1, 'url.path': url.pathname };
    const beforeParse = (bytes: Buffer) => requestNext(bytes, index);
    return traced(
      telemetry,
      'ledgerhook.sync.page',
      facts,
      async () => {
        const answer = await fetchJson({ ...options, signal, url, headers, beforeParse });
        telemetry.add('ledgerhook.sync.pages', 1);
        return answer;
      },
      'client',
    );
  };
  // A continued read's cursor counts as seen: a server that answers it with itself is looping.
  const seen = new Set<string>(options.cursor === undefined ? [] : [options.cursor]);
  const idle = new IdleCounter();
  const ahead = new RequestAhead<JsonAnswer>();
  const asked = new AskedPage(firstIndex);
  /** The pages whose beforeNext has been awaited: up to this one. */
  let settled = firstIndex;
  const settle = async (index: number) => {
    if (index <= settled) return;
    settled = index;
    await options.beforeNext?.();
  };
  // Page `index` has come: the request for the one after it goes out before it is parsed, on the
  // cursor its bytes end with, once the reader has asked for it (so that the reader's work on the
  // page before has begun, and beforeNext waits for it). The loop below keeps it or cancels it.
  async function requestNext(bytes: Buffer, index: number): Promise<void> {
    const cursor = trailingCursor(bytes);
    await asked.until(index, options.signal);
    // Any guess now is an earlier attempt's at this page (the loop took the one for this page).
    ahead.cancel();
    if (cursor === undefined || !CURSOR.test(cursor) || seen.has(cursor) || index + 1 >= maxPages) return;
    await settle(index);
    ahead.guess(cursor, (signal) => fetchPage(cursor, index + 1, signal), options.signal);
    // Two turns of the event loop before the parse: undici writes a request on a kept-alive socket
    // in a turn after the one it is made in (it checks the socket first), and the parse would hold it.
    await nextTurn();
    await nextTurn();
  }
  let pending = fetchPage(options.cursor, firstIndex);
  for (let index = firstIndex; ; index += 1) {
    asked.ask(index);
    const { body, bytes, date } = await pending;
    await settle(index);
    const classified = classifyBody(body);
    if (classified.kind === 'invalid')
      throw badResponse(
        classified.code
          ? `GET ${url.href} answered 200, but ${classified.reason}; refused rather than stored, nothing was changed`
          : `GET ${url.href} answered 200 but not a valid list envelope: ${classified.reason}`,
        classified.code ?? 'bad_envelope',
        url,
      );
    if (classified.kind === 'document') {
      if (options.allowDocument !== true || index > 0)
        throw badResponse(
          `GET ${url.href} answered 200 with something that is not a list envelope (no data array and lastUpdatedDate) where a list is expected; nothing was changed`,
          'not_an_envelope',
          url,
        );
      yield { kind: 'document', body: classified.body };
      return;
    }
    // Before the page goes anywhere (a checkpoint, the history, the state): a stamp from the future is refused.
    checkStampAhead(classified.page.lastUpdatedDate, date, (options.now ?? Date.now)(), url, options.maxStampAheadMs);
    const cursor = classified.page.cursor;
    if (cursor !== undefined) {
      // The cursor goes back as a request header: anything a header cannot carry (a newline,
      // non-ASCII) or an outsized one is the server's error, not a network failure to retry.
      if (!CURSOR.test(cursor))
        throw badResponse(
          `GET ${url.href} returned a cursor that cannot be sent back as a header (${cursor.length} characters, printable ASCII up to ${MAX_CURSOR} expected); stopped`,
          'invalid_cursor',
          url,
        );
      if (seen.has(cursor))
        throw badResponse(
          `GET ${url.href} returned a cursor it had already returned in this run (page ${index + 1}); stopped instead of looping`,
          'cursor_loop',
          url,
        );
      if (index + 1 >= maxPages)
        throw badResponse(`GET ${url.href} still had more pages after ${maxPages}; stopped`, 'too_many_pages', url, {
          maxPages,
        });
      if (idle.see(classified.page) >= MAX_IDLE_PAGES)
        throw badResponse(
          `GET ${url.href} sent ${MAX_IDLE_PAGES} pages in a row that brought nothing new, each with a fresh cursor; stopped`,
          'pages_without_progress',
          url,
        );
      seen.add(cursor);
      // The next request goes out while the caller works on this page (if it has not, on the cursor
      // read from the bytes); the requests stay in order.
      const early = ahead.take(cursor);
      pending = early ?? fetchPage(cursor, index + 1);
      pending.catch(() => {}); // if the caller stops early, nobody awaits it
      // One turn of the event loop before the page is handed over: undici writes the request a tick
      // or two after it is made, and a caller that works on the page in one stretch would hold it
      // back, the server idle meanwhile.
      if (early === undefined) await nextTurn();
    } else ahead.cancel();
    yield {
      kind: 'page',
      index,
      page: classified.page,
      bytes,
      ...(classified.quirk ? { quirk: classified.quirk } : {}),
    };
    if (cursor === undefined) return;
  }
}
