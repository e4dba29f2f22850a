import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { classifyBody, type ListPage } from './envelope.js';
import { fetchJson, type FetchJsonOptions } from './fetch-page.js';
import type { RetryPolicy, SharedBackoff } from './retry-policy.js';

export interface PaginateOptions {
  /** API root, e.g. https://sandbox.example.com/rest/v5 */
  baseUrl: string;
  token: string;
  /** Relative to the API root, e.g. /expenses */
  path: string;
  /** Query parameters (spec 4.3: the filter, e.g. type=PENDING). */
  filter?: Record<string, string>;
  limit?: number;
  /** The stored lastUpdatedDate of this dataset; omitted on a first sync. */
  lastUpdatedDate?: string;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  backoff?: SharedBackoff;
  now?: () => number;
  sleep?: FetchJsonOptions['sleep'];
  onRetry?: FetchJsonOptions['onRetry'];
  /**
   * Whether a first answer that is not an envelope is a document (like /userTaxSetup) rather
   * than an error. Default true; false for endpoints known to be lists.
   */
  allowDocument?: boolean;
}

export type PaginatedItem =
  | { kind: 'page'; index: number; page: ListPage }
  /** The endpoint answered something that is not an envelope (e.g. /userTaxSetup). */
  | { kind: 'document'; body: unknown };

/** Spec 4.3 rule 3. */
export const DEFAULT_LIMIT = 100;

export function listUrl(baseUrl: string, path: string, filter: Record<string, string> = {}): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [key, value] of Object.entries(filter).sort(([a], [b]) => a.localeCompare(b))) url.searchParams.set(key, value);
  return url;
}

/**
 * Every page of a dataset, as spec 4.3 describes the requests: GET with Authorization, the
 * `limit` header, `cursor` from the previous page (never on the first) and `lastUpdatedDate`
 * (when given). The last page is the one without a cursor. A cursor seen twice fails the run.
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PaginatedItem> {
  const url = listUrl(options.baseUrl, options.path, options.filter);
  const fetchPage = (cursor: string | undefined) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
      limit: String(options.limit ?? DEFAULT_LIMIT),
    };
    if (cursor !== undefined) headers.cursor = cursor;
    if (options.lastUpdatedDate !== undefined) headers.lastUpdatedDate = options.lastUpdatedDate;
    return fetchJson({
      url, headers,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    });
  };
  const seen = new Set<string>();
  let pending = fetchPage(undefined);
  for (let index = 0; ; index += 1) {
    const body = await pending;
    const classified = classifyBody(body);
    if (classified.kind === 'invalid') throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${url.href} answered 200 but not a valid list envelope: ${classified.reason}`);
    if (classified.kind === 'document') {
      if (options.allowDocument === false) throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${url.href} answered 200 but not a list envelope (no data array and lastUpdatedDate) where a list is expected`);
      if (index > 0) throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${url.href} answered page ${index + 1} with something that is not a list envelope`);
      yield { kind: 'document', body: classified.body };
      return;
    }
    const cursor = classified.page.cursor;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${url.href} returned a cursor it had already returned in this run (page ${index + 1}); stopping instead of looping`);
      seen.add(cursor);
      // The next request goes out while the caller works on this page; the requests stay in order.
      pending = fetchPage(cursor);
      pending.catch(() => {}); // if the caller stops early, nobody awaits it
    }
    yield { kind: 'page', index, page: classified.page };
    if (cursor === undefined) return;
  }
}
