import type { EntityPaths } from '../catalogue/entity-paths.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { withRunClaim } from '../store/run-claim.js';
import { datasetOf } from './sync-job.js';
import { reconcileCounts, reconcileDataset } from '../sync/reconcile.js';
import { syncDataset } from '../sync/sync-dataset.js';
import { recordWebhookRun } from '../webhook-sync/run-activity.js';
import type { RunReconcile, RunSync } from './sync-worker.js';

interface StoreRunOptions {
  store: DatasetStore;
  baseUrl: string;
  limit?: number | undefined;
  /** Look back this far past the stored lastUpdatedDate (syncDataset's lagMs; the `lag` setting). */
  lagMs?: number | undefined;
  /** How far the server's lastUpdatedDate may run ahead of its clock (syncDataset's; the `maxStampAhead` setting). */
  maxStampAheadMs?: number | undefined;
  paths?: EntityPaths | undefined;
  /** Clock for the time from a webhook to its data committed (freshness). */
  now?: (() => number) | undefined;
  /** Keep removed items as tombstones (worker --keep-deleted). */
  keepDeleted?: boolean | undefined;
  /** Answers to a resumed read's cursor that mean it expired (syncDataset's expiredCursorStatuses). */
  expiredCursorStatuses?: readonly number[] | undefined;
}

/**
 * The worker's RunSync: syncDataset of the job's dataset into the store (a full read the first
 * time, then only changes). Data and state commit together, so a run killed at any moment leaves
 * the previous data and state, and the re-run converges. The run is recorded in the dataset's
 * activity (a webhook-caused run, timed from the job's creation) for `ledgerhook freshness`.
 */
export function storeSync(options: StoreRunOptions): RunSync {
  return async ({ job, token, dispatcher, backoff, signal, receivedAtMs, telemetry }) => {
    const ref = { baseUrl: options.baseUrl, token, path: job.path, filter: job.filter, userId: job.userId };
    const summary = await withRunClaim(options.store, { userId: job.userId, dataset: datasetOf(job) }, () =>
      syncDataset({
        ...ref,
        history: { cause: 'webhook', deliveryId: job.deliveryId },
        output: { keepDeleted: options.keepDeleted },
        paths: options.paths,
        store: options.store,
        read: {
          limit: options.limit,
          lagMs: options.lagMs,
          maxStampAheadMs: options.maxStampAheadMs,
          expiredCursorStatuses: options.expiredCursorStatuses,
        },
        dispatcher,
        backoff,
        signal,
        telemetry,
      }),
    );
    await recordWebhookRun(options.store, ref, summary, receivedAtMs, options.now ?? Date.now);
    return {
      dataset: summary.dataset,
      mode: summary.mode,
      pages: summary.pages,
      upserted: summary.upserted,
      deleted: summary.deleted,
      total: summary.total,
      lastUpdatedDate: summary.lastUpdatedDate,
      // Recorded, never enforced: a queued webhook run has nobody to stop for (no contract here).
      ...(summary.drift ? { drift: summary.drift } : {}),
      ...(summary.stampBehind ? { stampBehind: summary.stampBehind } : {}),
    };
  };
}

/** The worker's RunReconcile: reconcileDataset with repair (worker --reconcile-every). */
export function storeReconcile(options: StoreRunOptions): RunReconcile {
  return async ({ job, token, dispatcher, backoff, signal }) => {
    const result = await withRunClaim(options.store, { userId: job.userId, dataset: datasetOf(job) }, () =>
      reconcileDataset({
        baseUrl: options.baseUrl,
        token,
        path: job.path,
        filter: job.filter,
        userId: job.userId,
        paths: options.paths,
        store: options.store,
        read: { limit: options.limit, maxStampAheadMs: options.maxStampAheadMs },
        repair: true,
        output: { keepDeleted: options.keepDeleted },
        dispatcher,
        backoff,
        signal,
      }),
    );
    return { dataset: result.dataset, equal: result.equal, ...reconcileCounts(result) };
  };
}
