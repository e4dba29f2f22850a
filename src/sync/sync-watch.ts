import { delay } from '../util/delay.js';
import { type ReconcileResult, reconcileDataset } from './reconcile.js';
import { entityAtPath } from '../catalogue/entity-paths.js';
import { datasetRef, type SyncDatasetOptions } from './sync-dataset.js';
import { type DatasetOutcome, eachDataset, type SyncOutcome, syncDatasets } from './sync-many.js';

export interface WatchOptions {
  /** Time between the end of one round and the start of the next. */
  intervalMs: number;
  concurrency?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Waits between rounds; rejects when the signal fires (injectable for tests). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /**
   * Reconcile every dataset (with repair) after the round in which this much time has passed since
   * the watch started or the last reconcile: what polling's incremental reads miss is put right.
   */
  reconcileEveryMs?: number | undefined;
  /** Clock for the reconcile schedule (ms since the epoch). */
  now?: (() => number) | undefined;
}

export interface WatchRound {
  round: number;
  outcomes: SyncOutcome[];
  /** Set on a round after which the datasets were reconciled. */
  reconciled?: Array<DatasetOutcome<ReconcileResult>> | undefined;
}

async function holdingDelay(ms: number, signal?: AbortSignal): Promise<void> {
  // delay() never keeps the process alive; a watch waiting for its next round must.
  const hold = setTimeout(() => {}, ms);
  try {
    await delay(ms, signal);
  } finally {
    clearTimeout(hold);
  }
}

/**
 * Keeps datasets current by polling: a sync round (incremental after the first), a pause, and
 * again, until the signal fires; with reconcileEveryMs, a reconcile with repair now and then. A failed round does not end the watch; its outcome says why.
 * Each round is yielded when it ends, so the caller can report it.
 */
export async function* watchDatasets(
  datasets: readonly SyncDatasetOptions[],
  options: WatchOptions,
): AsyncGenerator<WatchRound> {
  const sleep = options.sleep ?? holdingDelay;
  const now = options.now ?? Date.now;
  let lastReconcile = now();
  for (let round = 1; ; round += 1) {
    const outcomes = await syncDatasets(datasets, options.concurrency);
    const every = options.reconcileEveryMs;
    let reconciled: WatchRound['reconciled'];
    if (every !== undefined && now() - lastReconcile >= every && !options.signal?.aborted) {
      // A document has no items to compare: each sync replaces it whole.
      // A dry run writes nothing, a repair's commit and record included.
      const lists = datasets.filter(
        (dataset) =>
          !dataset.output?.dryRun && entityAtPath(datasetRef(dataset).path, dataset.paths)?.paginated !== false,
      );
      reconciled = await eachDataset(
        lists,
        (dataset) => reconcileDataset({ ...dataset, repair: true, onProgress: undefined }),
        options.concurrency,
      );
      lastReconcile = now();
    }
    yield { round, outcomes, ...(reconciled ? { reconciled } : {}) };
    if (options.signal?.aborted) return;
    try {
      await sleep(options.intervalMs, options.signal);
    } catch {
      return;
    }
  }
}
