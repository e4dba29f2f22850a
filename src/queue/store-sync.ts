import type { EntityPaths } from '../catalogue/entity-paths.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { syncDataset } from '../sync/sync-dataset.js';
import type { RunSync } from './sync-worker.js';

/**
 * The worker's RunSync: syncDataset of the job's dataset into the store (a full read the first
 * time, then only changes). Data and state commit together, so a run killed at any moment leaves
 * the previous data and state, and the re-run converges.
 */
export function storeSync(options: {
  store: DatasetStore;
  baseUrl: string;
  limit?: number | undefined;
  paths?: EntityPaths | undefined;
  /** Answers to a resumed read's cursor that mean it expired (syncDataset's expiredCursorStatuses). */
  expiredCursorStatuses?: readonly number[] | undefined;
}): RunSync {
  return async ({ job, token, dispatcher, backoff, signal }) => {
    const summary = await syncDataset({
      baseUrl: options.baseUrl,
      token,
      path: job.path,
      paths: options.paths,
      filter: job.filter,
      userId: job.userId,
      store: options.store,
      limit: options.limit,
      expiredCursorStatuses: options.expiredCursorStatuses,
      dispatcher,
      backoff,
      signal,
    });
    return {
      dataset: summary.dataset,
      mode: summary.mode,
      pages: summary.pages,
      upserted: summary.upserted,
      deleted: summary.deleted,
      total: summary.total,
      lastUpdatedDate: summary.lastUpdatedDate,
    };
  };
}
