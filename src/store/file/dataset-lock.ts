import { basename, dirname, join } from 'node:path';
import { LedgerhookError } from '../../errors.js';
import { errnoSentence } from '../../util/fs-errors.js';
import { type LeaseOptions, LockLease } from './lock-lease.js';

/** How long a write waits for another process writing the same dataset (a large merge takes seconds). */
export const DEFAULT_DATASET_LOCK_WAIT_MS = 60_000;

/** The lock directory of a dataset's file: `.<file>.lock` beside it (no dataset file starts with a dot). */
export function datasetLockPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.lock`);
}

/**
 * Runs `write` holding the dataset's lock across processes: a merge (or a full read's commit) reads
 * the state and the file, writes the new file, renames it and commits the state, and two processes
 * on one output directory (`listen --sync` beside `reconcile --repair`) must not both merge from the
 * same file, where the last rename wins and the state may describe the other's file. As with the
 * state's lock, a crashed holder's lock is taken once stale; a live holder is waited for up to
 * `waitMs`, then the run fails saying so. `write` calls `lease.assertHeld()` before its rename.
 * The state's lock is only ever taken inside this one, never around it: no two runs wait for each other.
 */
export async function withDatasetLock<T>(
  file: string,
  options: LeaseOptions,
  write: (lease: LockLease) => Promise<T>,
): Promise<T> {
  const lockPath = datasetLockPath(file);
  const waitMs = options.waitMs ?? DEFAULT_DATASET_LOCK_WAIT_MS;
  let lease: LockLease;
  try {
    lease = await LockLease.acquire(file, lockPath, `writing ${file}`, { ...options, waitMs });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED')
      throw new LedgerhookError(
        'ERR_IO',
        `another ledgerhook run is writing ${file}: its lock ${lockPath} was still held after ${waitMs >= 1000 ? `${Math.round(waitMs / 1000)} s` : `${waitMs} ms`}`,
        { cause: error, details: { reason: 'dataset_busy', path: file } },
      );
    throw new LedgerhookError('ERR_IO', `cannot lock ${file}: ${errnoSentence(error)}`, {
      cause: error,
      details: { reason: 'out_dir_not_writable', path: dirname(file) },
    });
  }
  try {
    return await write(lease);
  } finally {
    await lease.release();
  }
}
