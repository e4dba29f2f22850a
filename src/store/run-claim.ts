import { LedgerhookError } from '../errors.js';
import type { DatasetRef, DatasetStore } from './dataset-store.js';

/**
 * Runs `run` holding the dataset's claim (DatasetStore.claimRun), where the store has one: while
 * another run of the dataset holds it, on any process, this one fails with reason `dataset_busy`
 * before it reads or writes anything (a worker's job then waits its turn: queue/job-processor.ts).
 */
export async function withRunClaim<T>(
  store: DatasetStore,
  ref: Pick<DatasetRef, 'userId' | 'dataset'>,
  run: () => Promise<T>,
): Promise<T> {
  if (!store.claimRun) return run();
  const claim = await store.claimRun(ref);
  if (!claim)
    throw new LedgerhookError(
      'ERR_IO',
      `another run of ${ref.dataset}${ref.userId === '' ? '' : ` of user ${JSON.stringify(ref.userId)}`} is in progress`,
      { details: { reason: 'dataset_busy', dataset: ref.dataset } },
    );
  try {
    return await run();
  } finally {
    await claim.release();
  }
}
