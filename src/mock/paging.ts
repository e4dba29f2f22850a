import type { CursorCodec, CursorState } from './cursor.js';
import type { ChangesBetween } from './dataset.js';
import type { MockItem } from './entity-generators.js';
import { mockError } from './mock-error.js';
import {
  DEFAULT_PAGE_SIZE,
  type DeletedIdsOn,
  type Granularity,
  type ListEnvelope,
  MAX_PAGE_SIZE,
  type SinceBoundary,
} from './mock-types.js';

/**
 * What paging reads of a dataset: the generated one (dataset.ts) and a recorded one
 * (recorded-dataset.ts) are paged by the same rules.
 */
export interface PagedDataset {
  /** Before this time nothing is known: a lastUpdatedDate older than it gets a full read. */
  readonly baseTime: number;
  itemsAsOf(asOf: number, afterId?: number): Iterable<MockItem>;
  changesBetween(since: number, asOf: number): ChangesBetween;
}

/** Query parameters of a list request, sorted by name: together with the path they name a dataset (rule 6). */
export type Filter = Array<[string, string]>;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/** A filter only constrains fields the item has (spec: only `type` is shown as a filter). */
export function matches(item: MockItem, filter: Filter): boolean {
  return filter.every(([key, value]) => !(key in item) || String(item[key]) === value);
}

export function filterOf(params: URLSearchParams): Filter {
  return [...params.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** The limit header: absent means the recommended 100 (spec 4.3 rule 3); above `max`, a 400. */
export function parseLimit(header: string | undefined, max = MAX_PAGE_SIZE): number {
  if (header === undefined || header === '') return Math.min(DEFAULT_PAGE_SIZE, max);
  if (!/^\d+$/.test(header.trim()))
    throw mockError(400, 'invalid_limit', `limit must be a whole number from 1 to ${max}, got "${header}"`);
  const limit = Number(header);
  if (limit < 1 || limit > max) throw mockError(400, 'invalid_limit', `limit must be from 1 to ${max}, got ${limit}`);
  return limit;
}

/** The lastUpdatedDate header in ms, or null when absent (a full read, spec 4.3 rule 4). */
export function parseSince(header: string | undefined): number | null {
  if (header === undefined || header === '') return null;
  const value = header.trim();
  const ms = Date.parse(value);
  if (!ISO_8601.test(value) || !Number.isFinite(ms))
    throw mockError(
      400,
      'invalid_last_updated_date',
      `lastUpdatedDate must be an ISO 8601 timestamp such as 2026-01-31T12:00:00.000Z, got "${header}"`,
    );
  return ms;
}

/** Where a read continues: from a cursor of this dataset, or a fresh state for a first page. */
export function readState(
  cursors: CursorCodec,
  datasetKey: string,
  headers: Record<string, string | undefined>,
  fresh: () => CursorState,
): { state: CursorState; firstPage: boolean } {
  const cursor = headers.cursor;
  if (cursor === undefined || cursor === '') return { state: fresh(), firstPage: true };
  const decoded = cursors.decode(cursor);
  if (!decoded.ok) throw mockError(400, 'invalid_cursor', `cursor rejected: ${decoded.reason}`);
  if (decoded.state.dataset !== datasetKey)
    throw mockError(400, 'invalid_cursor', 'this cursor belongs to another dataset (a different path or filter)');
  return { state: decoded.state, firstPage: false };
}

interface Collected {
  page: MockItem[];
  more: boolean;
  deletedIds: number[];
}

/** Up to `limit` items from `source`; `more` says whether another one was left. */
function take(source: Iterable<MockItem>, limit: number): { page: MockItem[]; more: boolean } {
  const page: MockItem[] = [];
  for (const item of source) {
    if (page.length === limit) return { page, more: true };
    page.push(item);
  }
  return { page, more: false };
}

function* fullRead(dataset: PagedDataset, state: CursorState, filter: Filter): Generator<MockItem> {
  for (const item of dataset.itemsAsOf(state.asOf, state.lastId)) if (matches(item, filter)) yield item;
}

/** Spec 4.3 rule 5: items changed in (since, asOf] that match, and ids that left the filtered dataset. */
function incrementalRead(dataset: PagedDataset, state: CursorState, since: number, filter: Filter, limit: number) {
  const changes = dataset.changesBetween(since, state.asOf);
  function* changed(): Generator<MockItem> {
    for (const id of changes.ids) {
      const after = changes.after.get(id);
      if (id > state.lastId && after && matches(after, filter)) yield after;
    }
  }
  const deletedIds = changes.ids.filter((id) => {
    const before = changes.before.get(id);
    const after = changes.after.get(id);
    return before && matches(before, filter) && !(after && matches(after, filter));
  });
  return { ...take(changed(), limit), deletedIds };
}

export interface PageRequest {
  dataset: PagedDataset;
  state: CursorState;
  firstPage: boolean;
  filter: Filter;
  limit: number;
  cursors: CursorCodec;
  deletedIdsOn: DeletedIdsOn;
  /** The precision lastUpdatedDate is reported with (default ms). */
  granularity?: Granularity | undefined;
}

/**
 * The lastUpdatedDate a client sent, as the last instant NOT to be sent again: the reads collect
 * changes after it. A server comparing at whole seconds with `>` skips the rest of that second; with
 * `>=` it sends the whole second again.
 */
export function boundaryOf(since: number | null, boundary: SinceBoundary, granularity: Granularity): number | null {
  if (since === null) return null;
  if (granularity === 's') {
    const second = Math.floor(since / 1000) * 1000;
    return boundary === 'exclusive' ? second + 999 : second - 1;
  }
  return boundary === 'exclusive' ? since : since - 1;
}

/** A snapshot time as the server reports it: ISO 8601 in UTC, whole seconds when that is its precision. */
export function reportedDate(asOf: number, granularity: Granularity): string {
  return granularity === 's'
    ? new Date(Math.floor(asOf / 1000) * 1000).toISOString().replace('.000Z', 'Z')
    : new Date(asOf).toISOString();
}

/** One page of a list endpoint under the exact rules of spec 4.3 (cursor only when more pages remain). */
export function listPage(request: PageRequest): ListEnvelope {
  const { dataset, state, filter, limit } = request;
  const since = state.since;
  const collected: Collected =
    since !== null && since >= dataset.baseTime
      ? incrementalRead(dataset, state, since, filter, limit)
      : { ...take(fullRead(dataset, state, filter), limit), deletedIds: [] };
  const { page, more, deletedIds } = collected;
  const envelope: ListEnvelope = { data: page, lastUpdatedDate: reportedDate(state.asOf, request.granularity ?? 'ms') };
  const last = page.at(-1);
  if (more && last) envelope.cursor = request.cursors.encode({ ...state, lastId: last.id });
  const on = request.deletedIdsOn;
  const carriesDeleted = on === 'every' || (on === 'first' && request.firstPage) || (on === 'last' && !more);
  if (deletedIds.length > 0 && carriesDeleted) envelope.deletedIds = deletedIds;
  return envelope;
}
