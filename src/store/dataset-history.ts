import type { ItemId } from '../dataset/item-id.js';
import { isItemId } from '../dataset/item-id.js';
import { isObject } from '../util/is-object.js';

/**
 * Why an item left a dataset: removed from the service, or still there but no longer
 * matching the dataset's filter (an approved expense leaves PENDING; it was not deleted).
 */
export type RemovalReason = 'deleted' | 'left_filter';

/** What caused a run: a plain sync, a verified webhook (and which delivery), or a reconcile's repair. */
export type ChangeCause = 'sync' | 'webhook' | 'reconcile';

/** Where a committed change came from: the run, its cause, and for a webhook the delivery that triggered it. */
export interface ChangeOrigin {
  run: string;
  /** When the run committed (ISO 8601 UTC). */
  at: string;
  cause: ChangeCause;
  deliveryId?: string | undefined;
  /** The lastUpdatedDate of the page each upserted id came on (by idKey); deletes take the run's first. */
  pageOf?: ReadonlyMap<string, string> | undefined;
  firstPage?: string | undefined;
}

/** One version of an item in a dataset's history. */
export interface HistoryEntry {
  at: string;
  run: string;
  cause: ChangeCause;
  deliveryId?: string | undefined;
  op: 'upsert' | 'delete';
  id: ItemId;
  /** An upsert's new content; a delete's last content when tombstones are kept. */
  item?: Record<string, unknown> | undefined;
  reason?: RemovalReason | undefined;
  /** The lastUpdatedDate of the page that brought the change. */
  page?: string | undefined;
}

const CAUSES: readonly string[] = ['sync', 'webhook', 'reconcile'];

/** A history entry read back (a file line, a row): anything malformed is skipped, never trusted. */
export function historyEntryFrom(value: unknown): HistoryEntry | undefined {
  if (!isObject(value) || typeof value.at !== 'string' || typeof value.run !== 'string') return undefined;
  if (!CAUSES.includes(String(value.cause)) || (value.op !== 'upsert' && value.op !== 'delete')) return undefined;
  if (!isItemId(value.id)) return undefined;
  return {
    at: value.at,
    run: value.run,
    cause: value.cause as ChangeCause,
    ...(typeof value.deliveryId === 'string' ? { deliveryId: value.deliveryId } : {}),
    op: value.op,
    id: value.id,
    ...(isObject(value.item) ? { item: value.item } : {}),
    ...(value.reason === 'deleted' || value.reason === 'left_filter' ? { reason: value.reason } : {}),
    ...(typeof value.page === 'string' ? { page: value.page } : {}),
  };
}

/** A run id: sortable by time, unique enough for one dataset's history. */
export function newRunId(now: number, random: () => string): string {
  return `run_${now.toString(36)}${random()}`;
}

/**
 * The history entries of one commit: every upsert, and every removal that removed something
 * (`removed`: the dropped items with their last content, which only a kept tombstone records).
 */
export function changeEntries(
  origin: ChangeOrigin,
  upserts: ReadonlyArray<Record<string, unknown> & { id: ItemId }>,
  removed: ReadonlyArray<Record<string, unknown> & { id: ItemId }>,
  options: {
    keepDeleted?: boolean | undefined;
    reasons?: ReadonlyMap<string, RemovalReason> | undefined;
    key: (id: ItemId) => string;
  },
): HistoryEntry[] {
  const base = {
    at: origin.at,
    run: origin.run,
    cause: origin.cause,
    ...(origin.deliveryId !== undefined ? { deliveryId: origin.deliveryId } : {}),
  };
  const page = (id: ItemId) => origin.pageOf?.get(options.key(id)) ?? origin.firstPage;
  return [
    ...upserts.map((item): HistoryEntry => ({ ...base, op: 'upsert', id: item.id, item, page: page(item.id) })),
    ...removed.map(
      (item): HistoryEntry => ({
        ...base,
        op: 'delete',
        id: item.id,
        page: origin.firstPage,
        ...(options.keepDeleted ? { item, reason: options.reasons?.get(options.key(item.id)) ?? 'deleted' } : {}),
      }),
    ),
  ];
}
