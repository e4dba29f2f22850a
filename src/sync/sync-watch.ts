import { delay } from '../util/delay.js';
import type { SyncDatasetOptions } from './sync-dataset.js';
import { type SyncOutcome, syncDatasets } from './sync-many.js';

export interface WatchOptions {
  /** Time between the end of one round and the start of the next. */
  intervalMs: number;
  concurrency?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Waits between rounds; rejects when the signal fires (injectable for tests). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

export interface WatchRound {
  round: number;
  outcomes: SyncOutcome[];
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
 * again, until the signal fires. A failed round does not end the watch; its outcome says why.
 * Each round is yielded when it ends, so the caller can report it.
 */
export async function* watchDatasets(
  datasets: readonly SyncDatasetOptions[],
  options: WatchOptions,
): AsyncGenerator<WatchRound> {
  const sleep = options.sleep ?? holdingDelay;
  for (let round = 1; ; round += 1) {
    const outcomes = await syncDatasets(datasets, options.concurrency);
    yield { round, outcomes };
    if (options.signal?.aborted) return;
    try {
      await sleep(options.intervalMs, options.signal);
    } catch {
      return;
    }
  }
}
