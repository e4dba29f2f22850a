import type { EntityPaths } from '../catalogue/entity-paths.js';
import { LedgerhookError } from '../errors.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { datasetOf, type SyncJobData } from './sync-job.js';
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
    const summary = await claimed(options.store, job, () =>
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
    const result = await claimed(options.store, job, () =>
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

/**
 * Runs `run` holding the dataset's claim (DatasetStore.claimRun), where the store has one: a second
 * run of a dataset, on any worker, fails with reason `dataset_busy` before its first request, and
 * its job waits (job-processor.ts).
 */
async function claimed<T>(store: DatasetStore, job: SyncJobData, run: () => Promise<T>): Promise<T> {
  if (!store.claimRun) return run();
  const dataset = datasetOf(job);
  const claim = await store.claimRun({ userId: job.userId, dataset });
  if (!claim)
    throw new LedgerhookError(
      'ERR_IO',
      `another run of ${dataset} of user ${JSON.stringify(job.userId)} is in progress`,
      {
        details: { reason: 'dataset_busy', dataset },
      },
    );
  try {
    return await run();
  } finally {
    await claim.release();
  }
}
