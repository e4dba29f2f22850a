import { LedgerhookError } from '../../errors.js';
import { AtomicItemWriter } from './atomic-item-writer.js';
import { dataFileExists, type Item } from './data-file.js';
import type { ChangeSet, CommitResult, DatasetRef, DatasetState } from '../dataset-store.js';
import { settleBoth } from './durable-replace.js';
import type { FileChangeLog } from './file-change-log.js';
import { mergeIntoFile } from './file-store-merge.js';
import type { LockLease } from './lock-lease.js';
import type { StateCommit } from './state-commit.js';

/**
 * An incremental run's commit (FileStore.applyChanges, under the dataset's lock): its changes merged
 * into the file (file-store-merge.ts), logged before the new file is renamed into place, and its
 * state recorded around the rename (state-commit.ts). Apart from FileStore because this order is what
 * makes a run's changes never lost; a run with nothing to merge into a file as committed reads nothing.
 */
export async function mergeAndCommit(
  commits: StateCommit,
  log: FileChangeLog,
  ref: DatasetRef,
  file: string,
  changes: ChangeSet,
  state: DatasetState,
  lease: LockLease,
): Promise<CommitResult> {
  const record = await commits.read(ref, file);
  if (!record || !(await dataFileExists(file)))
    throw new LedgerhookError('ERR_IO', `${file} is missing: its changes have nothing to be merged into`, {
      details: { reason: 'data_file_damaged', path: file },
    });
  // Nothing to merge into a file as committed (one stat) is no read at all; a merge always checks it.
  const nothingToMerge = changes.upserts.length === 0 && changes.deletedIds.length === 0 && !changes.recount;
  if (nothingToMerge && (await commits.asCommitted(record, file, changes.verify))) {
    if (changes.origin) await log.record(file, record, changes, []);
    const kept = { ...state, run: changes.origin?.run, items: record.items, checksum: record.checksum };
    // As install() does before its rename: a run that stood still past the lock's stale time must not
    // write its old record over what the run that took the lock committed (review).
    lease.assertHeld();
    await commits.commit(ref, file, kept, record.fingerprint);
    if (changes.origin) await log.committed(file, changes.origin);
    return { total: record.items, upserted: 0, removed: 0 };
  }
  const expected = [record, record.pending]
    .filter((entry): entry is DatasetState => entry !== undefined)
    .map((entry) => ({ items: entry.items, checksum: entry.checksum ?? '' }));
  const writer = await AtomicItemWriter.create(file);
  const removed: Item[] = [];
  let result: CommitResult;
  try {
    result = await mergeIntoFile(file, changes, expected, writer, (item) => removed.push(item));
  } catch (error) {
    await writer.discard();
    throw error;
  }
  // The run's changes are in the log (fsynced) before its data is in place: none is ever lost.
  // Written while the new file is flushed to disk, so that neither waits for the other; the rename
  // waits for both.
  const origin = changes.origin;
  const logged = origin ? log.record(file, record, changes, removed) : undefined;
  logged?.catch(() => {}); // waited for before the rename; a commit that fails first drops the run
  await commits.install(
    ref,
    file,
    { ...state, run: origin?.run },
    (before) => writer.commit((digest) => settleBoth(before(digest), logged)),
    lease,
    // The run's marker once its data is durably in place, beside the state's commit: either one
    // alone already makes the run's changes count (change-log.ts), in whichever order they land.
    origin ? () => log.committed(file, origin) : undefined,
  );
  return result;
}
