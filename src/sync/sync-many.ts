import { LedgerhookError } from '../errors.js';
import { SharedBackoff } from './retry-policy.js';
import { syncDataset, type SyncDatasetOptions, type SyncSummary } from './sync-dataset.js';

export type SyncOutcome = { path: string; ok: true; summary: SyncSummary } | { path: string; ok: false; error: LedgerhookError };

/**
 * Syncs several datasets with at most `concurrency` at once and one shared rate-limit pause.
 * A dataset that fails does not stop the others; Ctrl-C (the signal) stops them all.
 */
export async function syncDatasets(datasets: readonly SyncDatasetOptions[], concurrency = 4): Promise<SyncOutcome[]> {
  const backoff = new SharedBackoff();
  const outcomes: SyncOutcome[] = new Array(datasets.length);
  let next = 0;
  const worker = async () => {
    while (next < datasets.length) {
      const index = next++;
      const options = datasets[index]!;
      try {
        outcomes[index] = { path: options.path, ok: true, summary: await syncDataset({ backoff, ...options }) };
      } catch (error) {
        if (!(error instanceof LedgerhookError) || error.code === 'ERR_ABORTED') throw error;
        outcomes[index] = { path: options.path, ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, datasets.length)) }, worker));
  return outcomes;
}
