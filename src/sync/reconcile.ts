import { entityAtPath } from '../catalogue/entity-paths.js';
import { LedgerhookError } from '../errors.js';
import { compareIds, idKey, type ItemId } from '../dataset/item-id.js';
import { withReconcile, withRun, type ReconcileCounts, type ReconcileRecord } from '../store/dataset-activity.js';
import type { CommitResult, DatasetRef, StoredItem } from '../store/dataset-store.js';
import { accessBeforeOwner } from './access-before-owner.js';
import { explainEntityNotFound } from './entity-not-found.js';
import { itemHash, quickHash } from './item-hash.js';
import { paginate } from './paginate.js';
import { changeExtras, removalReasons, startRun } from './change-origin.js';
import {
  datasetRef,
  normalizeSyncDatasetOptions,
  pageReadOptions,
  type ResolvedSyncDatasetOptions,
  type SyncDatasetOptions,
  type SyncProgressEvent,
} from './sync-options.js';

export type ReconcileProgressEvent =
  | { type: 'start'; dataset: string; storedItems: number }
  | { type: 'page'; dataset: string; page: number; itemsSoFar: number }
  | Extract<SyncProgressEvent, { type: 'retry' }>
  | { type: 'done'; result: ReconcileResult };

type SyncRead = NonNullable<SyncDatasetOptions['read']>;
type SyncOutput = NonNullable<SyncDatasetOptions['output']>;

/** syncDataset's options that a full read compared with the store has a use for, grouped alike. */
export interface ReconcileOptions extends Omit<SyncDatasetOptions, 'read' | 'output' | 'history' | 'onProgress'> {
  read?: Pick<SyncRead, 'limit' | 'maxStampAheadMs'> | undefined;
  /** keepDeleted: a repair keeps what it removes as tombstones, as a sync does. */
  output?: Pick<SyncOutput, 'keepDeleted'> | undefined;
  /** Apply the difference to the store in one commit (upserts and deletes together with the state). */
  repair?: boolean | undefined;
  onProgress?: ((event: ReconcileProgressEvent) => void) | undefined;
}

export interface ReconcileResult {
  dataset: string;
  userId: string;
  equal: boolean;
  pages: number;
  serverItems: number;
  storedItems: number;
  /** On the server, not in the store. Sorted by id. */
  missing: ItemId[];
  /** In the store, not on the server. */
  extra: ItemId[];
  /** In both, with different content. */
  different: ItemId[];
  /** The server's lastUpdatedDate on the first page of the read. */
  lastUpdatedDate: string;
  /** Set when `repair` applied a difference. */
  repaired?: CommitResult | undefined;
}

/** A result's counts: what the dataset's activity records and a worker's reconcile job reports. */
export function reconcileCounts(result: ReconcileResult): ReconcileCounts {
  return {
    serverItems: result.serverItems,
    storedItems: result.storedItems,
    missing: result.missing.length,
    extra: result.extra.length,
    different: result.different.length,
    repaired: result.repaired !== undefined,
  };
}

const byId = (a: ItemId, b: ItemId) => compareIds(a, b);

/** The stored copy as id → hash, with a mark for every id the server also has. */
async function storedHashes(items: AsyncIterable<StoredItem>, hash: (item: unknown) => string) {
  const stored = new Map<string, { id: ItemId; hash: string; seen: boolean }>();
  for await (const item of items) stored.set(idKey(item.id), { id: item.id, hash: hash(item), seen: false });
  return stored;
}

/**
 * Of the items whose quick hash differed, those whose content is the same in another key order
 * (Postgres's jsonb reorders keys): a second pass over the store, hashing canonically only those.
 */
async function sameContent(items: AsyncIterable<StoredItem>, suspects: ReadonlyMap<string, StoredItem>) {
  const same = new Set<string>();
  if (suspects.size === 0) return same;
  for await (const item of items) {
    const key = idKey(item.id);
    const server = suspects.get(key);
    if (server && itemHash(server) === itemHash(item)) same.add(key);
  }
  return same;
}

async function requireState(options: Pick<ResolvedSyncDatasetOptions, 'store'>, ref: DatasetRef) {
  const found = await (options.store.stateWithReason
    ? options.store.stateWithReason(ref)
    : options.store
        .getState(ref)
        .then((state) => (state ? { state } : { state: undefined, reason: 'first-sync' as const })));
  if (found.state) return found.state;
  const why = 'reason' in found && found.reason !== 'first-sync' ? ` (${found.reason.replace('-', ' ')})` : '';
  throw new LedgerhookError(
    'ERR_USAGE',
    `${ref.dataset} has no synced copy in ${options.store.stateLocation}${why}: there is nothing to reconcile`,
    { details: { reason: 'dataset_not_synced', dataset: ref.dataset } },
  );
}

/**
 * Reads a dataset in full from the API without touching the stored copy and compares the two by id
 * and content hash: missing, extra, different. Memory: one hash per stored item plus the differing
 * server items (kept for the repair). Content, not spelling: where the store keeps the service's key
 * order, a quick hash of each item as serialised settles almost every item and the few that differ
 * are hashed again canonically (keys sorted) on both sides; a store that reorders keys (Postgres)
 * is hashed canonically throughout, so that memory stays one hash per item there too. With `repair`, the difference is applied in one commit,
 * and the state's lastUpdatedDate becomes this read's first page's (the earliest), so anything
 * that changed while the read ran is read again by the next sync. Every run is recorded in the
 * dataset's activity (last reconcile; a repaired difference counts as changes no webhook announced).
 */
export async function reconcileDataset(input: ReconcileOptions): Promise<ReconcileResult> {
  // Resolved as syncDataset resolves its own: one home for the read's defaults.
  const { repair, onProgress, ...rest } = input;
  const options = normalizeSyncDatasetOptions(rest);
  const ref = datasetRef(options);
  const emit = (event: ReconcileProgressEvent) => onProgress?.(event);
  if (entityAtPath(ref.path, options.paths)?.paginated === false)
    throw new LedgerhookError('ERR_USAGE', `${ref.dataset} is a document, not a list: each sync replaces it whole`, {
      details: { reason: 'reconcile_document', dataset: ref.dataset },
    });
  const state = await requireState(options, ref).catch((error: unknown) =>
    accessBeforeOwner(error, { ...pageReadOptions(options), path: ref.path, filter: ref.filter }),
  );
  // A store that keeps key order is compared as serialised (fast), the rest canonically (keys sorted).
  const hash = options.store.keepsKeyOrder ? quickHash : itemHash;
  const stored = await storedHashes(options.store.readItems(ref), hash);
  emit({ type: 'start', dataset: ref.dataset, storedItems: stored.size });
  const fetched = new Map<string, StoredItem>();
  let pages = 0;
  let itemsRead = 0;
  let lastUpdatedDate: string | undefined;
  try {
    for await (const entry of paginate({
      ...pageReadOptions(options),
      path: ref.path,
      filter: ref.filter,
      lastUpdatedDate: undefined,
      onRetry: (event) => emit({ type: 'retry', dataset: ref.dataset, ...event }),
    })) {
      if (entry.kind === 'document')
        throw new LedgerhookError('ERR_BAD_RESPONSE', `${ref.dataset} answered a document, not a list`, {
          details: { reason: 'not_an_envelope' },
        });
      pages += 1;
      lastUpdatedDate ??= entry.page.lastUpdatedDate;
      for (const item of entry.page.data) {
        const key = idKey(item.id);
        const mine = stored.get(key);
        if (mine) mine.seen = true;
        // The same id on two pages (moved while the read ran): the later copy is the current one.
        if (mine?.hash === hash(item)) fetched.delete(key);
        else fetched.set(key, item);
      }
      itemsRead += entry.page.data.length;
      emit({ type: 'page', dataset: ref.dataset, page: pages, itemsSoFar: itemsRead });
      if (options.signal?.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped');
    }
  } catch (error) {
    throw explainEntityNotFound(error, ref.path, options.paths, options.baseUrl);
  }
  // Only a quick comparison has suspects: the same content in another key order.
  const suspects = options.store.keepsKeyOrder ? new Map([...fetched].filter(([key]) => stored.has(key))) : new Map();
  for (const key of await sameContent(options.store.readItems(ref), suspects)) fetched.delete(key);
  const missing: ItemId[] = [];
  const different: ItemId[] = [];
  for (const [key, item] of fetched) (stored.has(key) ? different : missing).push(item.id);
  const extra = [...stored.values()].filter((entry) => !entry.seen).map((entry) => entry.id);
  // Every server id the store lacks is in `fetched` (no stored hash can match it).
  const serverItems = stored.size - extra.length + missing.length;
  const result: ReconcileResult = {
    dataset: ref.dataset,
    userId: ref.userId,
    equal: missing.length + extra.length + different.length === 0,
    pages,
    serverItems,
    storedItems: stored.size,
    missing: missing.sort(byId),
    extra: extra.sort(byId),
    different: different.sort(byId),
    lastUpdatedDate: lastUpdatedDate ?? state.lastUpdatedDate,
  };
  const at = new Date(options.now()).toISOString();
  if (repair && !result.equal) {
    if (options.signal?.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped');
    // The repair's history: every change it applies, caused by a reconcile (extras left the server's list).
    // An extra left after the stored lastUpdatedDate (a sync since then would have removed it): the
    // unfiltered read since that date tells a deletion from an item that left a filter, as a sync does.
    const { keepDeleted } = options.output;
    const reasons = keepDeleted
      ? await removalReasons(pageReadOptions(options), ref, state.lastUpdatedDate, result.extra).catch(
          (error: unknown) => {
            throw explainEntityNotFound(error, ref.path, options.paths, options.baseUrl);
          },
        )
      : undefined;
    const extra = changeExtras(
      startRun(Date.parse(at), 'reconcile'),
      at,
      result.lastUpdatedDate,
      new Map(),
      keepDeleted,
      reasons,
    );
    result.repaired = await options.store.applyChanges(
      ref,
      { upserts: [...fetched.values()], deletedIds: result.extra, recount: true, ...extra },
      { ...state, lastUpdatedDate: result.lastUpdatedDate, syncedAt: at, items: 0 },
    );
  }
  const record: ReconcileRecord = { at, ...reconcileCounts(result) };
  // Only a repaired difference counts as missed changes: one left standing is found again by the
  // next reconcile and would be counted twice; the last reconcile record shows it meanwhile.
  const changes = record.repaired ? record.missing + record.extra + record.different : 0;
  await options.store.updateActivity(ref, (previous) =>
    withReconcile(withRun(previous, { cause: 'unannounced', changes, at }), record),
  );
  emit({ type: 'done', result });
  return result;
}
