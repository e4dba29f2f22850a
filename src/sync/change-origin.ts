import { randomBytes } from 'node:crypto';
import { idKey, type ItemId } from '../dataset/item-id.js';
import { type ChangeCause, type ChangeOrigin, newRunId, type RemovalReason } from '../store/dataset-history.js';
import type { ChangeSet, DatasetRef } from '../store/dataset-store.js';
import { paginate, type PaginateOptions } from './paginate.js';

/** A run's identity and cause, chosen when it starts. */
export function startRun(now: number, cause: ChangeCause = 'sync', deliveryId?: string) {
  return { run: newRunId(now, () => randomBytes(3).toString('hex')), cause, deliveryId };
}

/**
 * Why each removed id left a FILTERED dataset. The service says only that it left
 * (spec 2.4: "removed, or no longer matching the filter"): the same path without the filter, read
 * since the same lastUpdatedDate, lists in its deletedIds the ids that were really deleted; the
 * others left the filter. An unfiltered dataset's removals are deletions. Costs requests only when
 * tombstones are kept and something left a filtered dataset.
 */
export async function removalReasons(
  options: Omit<PaginateOptions, 'path' | 'filter' | 'lastUpdatedDate'>,
  ref: Pick<DatasetRef, 'path' | 'filter'>,
  since: string | undefined,
  removed: readonly ItemId[],
): Promise<Map<string, RemovalReason>> {
  const reasons = new Map<string, RemovalReason>();
  if (removed.length === 0) return reasons;
  if (Object.keys(ref.filter).length === 0 || since === undefined) {
    for (const id of removed) reasons.set(idKey(id), 'deleted');
    return reasons;
  }
  const deleted = new Set<string>();
  for await (const entry of paginate({ ...options, path: ref.path, filter: {}, lastUpdatedDate: since }))
    if (entry.kind === 'page') for (const id of entry.page.deletedIds ?? []) deleted.add(idKey(id));
  for (const id of removed) reasons.set(idKey(id), deleted.has(idKey(id)) ? 'deleted' : 'left_filter');
  return reasons;
}

/** The provenance and tombstone settings handed to the store with a run's changes. */
export function changeExtras(
  run: ReturnType<typeof startRun>,
  at: string,
  firstPage: string,
  pageOf: ReadonlyMap<string, string>,
  keepDeleted: boolean,
  reasons: ReadonlyMap<string, RemovalReason> | undefined,
): Pick<ChangeSet, 'origin' | 'keepDeleted' | 'reasons'> {
  const origin: ChangeOrigin = {
    run: run.run,
    at,
    cause: run.cause,
    ...(run.deliveryId !== undefined ? { deliveryId: run.deliveryId } : {}),
    pageOf,
    firstPage,
  };
  return { origin, keepDeleted, ...(reasons ? { reasons } : {}) };
}
