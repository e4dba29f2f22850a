import { LedgerhookError } from '../errors.js';
import { runPool } from '../util/worker-pool.js';
import { SharedBackoff } from '../http/retry-policy.js';
import { type SyncDatasetOptions, type SyncSummary, syncDataset } from './sync-dataset.js';

export type DatasetOutcome<T> =
  | { path: string; ok: true; summary: T; ms: number }
  | { path: string; ok: false; error: LedgerhookError; ms: number }
  /** Not finished when the run was stopped: its previous data and state are as they were. */
  | { path: string; ok: false; stopped: true };

export type SyncOutcome = DatasetOutcome<SyncSummary>;

type DatasetWork = Pick<SyncDatasetOptions, 'path' | 'signal' | 'backoff'>;

/**
 * Runs `work` on several datasets with at most `concurrency` at once and one shared rate-limit
 * pause. A dataset that fails does not stop the others; the signal (Ctrl-C) stops them all, and the
 * outcome of each is still reported (finished, failed, or left as it was).
 */
export async function eachDataset<O extends DatasetWork, T>(
  datasets: readonly O[],
  work: (options: O) => Promise<T>,
  concurrency = 4,
  now: () => number = Date.now,
): Promise<Array<DatasetOutcome<T>>> {
  const backoff = new SharedBackoff();
  const outcomes: Array<DatasetOutcome<T>> = datasets.map((options) => ({
    path: options.path,
    ok: false,
    stopped: true,
  }));
  const signal = datasets[0]?.signal;
  await runPool(
    datasets.length,
    concurrency,
    async (index) => {
      const options = datasets[index];
      if (!options) return;
      const started = now();
      try {
        const summary = await work({ backoff, ...options });
        outcomes[index] = { path: options.path, ok: true, summary, ms: now() - started };
      } catch (error) {
        if (!(error instanceof LedgerhookError)) throw error;
        if (error.code === 'ERR_ABORTED') return;
        outcomes[index] = { path: options.path, ok: false, error, ms: now() - started };
      }
    },
    () => signal?.aborted === true,
  );
  return outcomes;
}

/** Syncs several datasets (eachDataset with syncDataset). */
export function syncDatasets(
  datasets: readonly SyncDatasetOptions[],
  concurrency = 4,
  now: () => number = Date.now,
): Promise<SyncOutcome[]> {
  return eachDataset(datasets, syncDataset, concurrency, now);
}
