/**
 * sync/: a dataset read from the service into a store.
 *   sync-dataset.ts   one dataset's run (this file); its options (resolved once) and summary in sync-options.ts
 *   paginate.ts       an endpoint read page by page (retries, bounds, one page ahead)
 *   read-run.ts       one read and its commit; page-sink.ts how its pages are kept
 *   resume.ts         continuing a kept read; since-window.ts `since`; look-back.ts the lag
 *   sync-many.ts      several datasets at once; sync-watch.ts `sync --watch`
 *   reconcile.ts      a full read compared with the store by id and hash, repaired in one commit
 *   change-origin.ts  a run's provenance and why removed items left (deleted or left_filter)
 *   schema-drift.ts, schema-contract.ts  the items' fields against what the state remembers
 *   server-stamp.ts   what the server's lastUpdatedDate may do (never silently moved back)
 *   check-access.ts   whether a base URL and token would sync (`status`)
 */
import { entityAtPath } from '../catalogue/entity-paths.js';
import { usageError } from '../errors.js';
import type { DatasetRef, DatasetState, FullReadReason } from '../store/dataset-store.js';
import { accessBeforeOwner } from './access-before-owner.js';
import { explainEntityNotFound } from './entity-not-found.js';
import { type ReadStart, runRead } from './read-run.js';
import { planResume, storeLocation } from './resume.js';
import { windowStart } from './since-window.js';
import {
  datasetRef,
  normalizeSyncDatasetOptions,
  pageReadOptions,
  type ResolvedSyncDatasetOptions,
  type SyncDatasetOptions,
  type SyncSummary,
} from './sync-options.js';
import { tracedSync } from './traced-sync.js';

export {
  datasetRef,
  normalizeSyncDatasetOptions,
  type ResolvedSyncDatasetOptions,
  type ResumeDiscardReason,
  type SyncDatasetOptions,
  type SyncProgressEvent,
  type SyncSummary,
} from './sync-options.js';

/** The stored state a run goes on from, or none for a full read (a document never keeps one). */
async function startingState(options: ResolvedSyncDatasetOptions, ref: DatasetRef): Promise<ReadStart> {
  const found = options.store.stateWithReason
    ? await options.store.stateWithReason(ref)
    : { state: await options.store.getState(ref), reason: 'first-sync' as const };
  const stored: DatasetState | undefined = found.state;
  const known = entityAtPath(ref.path, options.paths);
  const isDocument = known?.paginated === false;
  const state = options.read.full || isDocument || stored?.mode === 'document' ? undefined : stored;
  const fullReason: FullReadReason =
    options.read.full && stored ? 'requested' : 'reason' in found ? found.reason : 'first-sync';
  return { state, stored, isDocument, fullReason };
}

/**
 * Syncs one dataset into a store (spec 4.3): a full read the first time, then only what changed
 * since the stored lastUpdatedDate. Every page is fetched and checked before the store commits
 * data and state together; a failure or Ctrl-C leaves the previous data and state as they were.
 * The stored lastUpdatedDate is the FIRST page's (the earliest): an item edited while later
 * pages were read is newer than it, so the next run fetches it again instead of losing it.
 *
 * A full read keeps its pages with a checkpoint as it goes (in stores that can): a run that
 * was killed, stopped or cut off by the network is continued by the next run of the same dataset
 * from its last kept page, as long as the server accepts the cursor; when it answers that it does
 * not, the run starts again from page 1, saying so (`resumeDiscarded: 'invalid-cursor'`).
 */
export async function syncDataset(input: SyncDatasetOptions): Promise<SyncSummary> {
  const options = normalizeSyncDatasetOptions(input);
  const { telemetry } = options;
  return telemetry.enabled ? tracedSync(telemetry, options, datasetRef(options).dataset, syncRun) : syncRun(options);
}

/**
 * A continued full read holds pages read by an earlier run, before changes this run was meant to
 * bring (a webhook deduplicated into a queued job, a person re-running sync after a crash): one
 * incremental run from the committed state reads them at once. Its changes are added to the summary.
 */
async function catchUp(options: ResolvedSyncDatasetOptions, resumed: SyncSummary): Promise<SyncSummary> {
  const next = await syncRun({ ...options, read: { ...options.read, full: false, since: undefined } });
  return {
    ...resumed,
    upserted: resumed.upserted + next.upserted,
    deleted: resumed.deleted + next.deleted,
    total: next.total,
    lastUpdatedDate: next.lastUpdatedDate,
    catchUp: { pages: next.pages, upserted: next.upserted, deleted: next.deleted },
  };
}

async function syncRun(options: ResolvedSyncDatasetOptions): Promise<SyncSummary> {
  const ref = datasetRef(options);
  const emit = options.onProgress;
  const { since } = options.read;
  if (since !== undefined && options.read.full)
    throw usageError(
      'a window re-read merges into the stored data; it cannot also be a full rebuild',
      'conflicting_flags',
    );
  const start = await startingState(options, ref).catch((error: unknown) =>
    accessBeforeOwner(error, { ...pageReadOptions(options), path: ref.path, filter: ref.filter }),
  );
  const window =
    since === undefined || start.isDocument
      ? undefined
      : windowStart(since, ref, start.state, start.fullReason, storeLocation(options));
  try {
    const plan = await planResume(options, ref, start.stored, start.isDocument, emit);
    const first = await runRead(options, ref, start, plan, window);
    if (first !== 'restart') return first.resumed && !first.dryRun ? await catchUp(options, first) : first;
    // The server no longer takes the kept cursor: the run goes as if there had been no checkpoint.
    const again = await runRead(options, ref, start, { discarded: 'invalid-cursor' }, window);
    if (again === 'restart') throw new Error('a read without a checkpoint cannot restart');
    return again;
  } catch (error) {
    throw explainEntityNotFound(error, ref.path, options.paths, options.baseUrl);
  }
}
