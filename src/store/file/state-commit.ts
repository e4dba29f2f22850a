import type { FileDigest } from './data-file.js';
import type { DatasetRef, DatasetState } from '../dataset-store.js';
import { settleBoth } from './durable-replace.js';
import { fingerprintOf } from './file-fingerprint.js';
import { assertOwner, stateOf } from './file-store-records.js';
import type { FileStoreRecord, StateFile } from './file-store-state.js';
import { normaliseBaseUrl } from '../identity.js';
import type { LockLease } from './lock-lease.js';

/**
 * How a commit of a dataset's file is recorded in the state file: the pending state noted before the
 * rename, then the committed state and the file's fingerprint after it. Kept apart from FileStore
 * (which decides what to write) because this is the one order a crash must find on disk; every read
 * and write of the dataset's record here checks its owner first (file-store-records.ts).
 */
export class StateCommit {
  readonly #stateFile: StateFile;
  /** The dataset's record key (FileStore's: one per output directory). */
  readonly #keyOf: (ref: DatasetRef) => string;
  /** How the keys of this output directory's records start (recordKey). */
  readonly #outDir: string;

  constructor(stateFile: StateFile, keyOf: (ref: DatasetRef) => string, outDir: string) {
    this.#stateFile = stateFile;
    this.#keyOf = keyOf;
    this.#outDir = outDir;
  }

  /** A file belongs to the first owner that synced it; anyone else is refused. */
  #assertOwner(records: Parameters<typeof assertOwner>[0], ref: DatasetRef, file: string): void {
    assertOwner(records, this.#keyOf(ref), ref, file, this.#outDir);
  }

  /** The dataset's record as the state file holds it now, once its owner is checked. */
  async read(ref: DatasetRef, file: string): Promise<FileStoreRecord | undefined> {
    const records = await this.#stateFile.read();
    this.#assertOwner(records, ref, file);
    return records[this.#keyOf(ref)];
  }

  /** Notes the state of a file about to be renamed into place, so a crash right after is no damage. */
  async markPending(ref: DatasetRef, file: string, state: DatasetState): Promise<void> {
    await this.#stateFile.update((records) => {
      this.#assertOwner(records, ref, file);
      const record = records[this.#keyOf(ref)];
      // Only its item count and checksum are ever compared: the schema would double the record.
      const { schema: _schema, ...pending } = state;
      if (record) record.pending = pending;
      return { write: record !== undefined, result: undefined };
    });
  }

  /** Records the state of the file now in place (no pending left); the record's activity is kept. */
  async commit(ref: DatasetRef, file: string, state: DatasetState, fingerprint?: string): Promise<void> {
    const record: FileStoreRecord = {
      ...stateOf(state),
      ...(fingerprint ? { fingerprint } : {}),
      baseUrl: normaliseBaseUrl(ref.baseUrl),
      userId: ref.userId,
      dataset: ref.dataset,
      path: ref.path,
      filter: { ...ref.filter },
      file,
    };
    await this.#stateFile.update((records) => {
      this.#assertOwner(records, ref, file);
      const key = this.#keyOf(ref);
      const activity = records[key]?.activity;
      records[key] = activity ? { ...record, activity } : record;
      return { write: true, result: undefined };
    });
  }

  /**
   * Puts a new version of the file in place with its state recorded around the rename: `write`
   * writes it and calls `before` with its digest once fsynced (the pending state is noted, then the
   * lease checked), renames it; the committed state and fingerprint follow.
   */
  async install(
    ref: DatasetRef,
    file: string,
    state: DatasetState,
    write: (before: (digest: FileDigest) => Promise<void>) => Promise<FileDigest>,
    /** The dataset's lock (dataset-lock.ts): checked once the pending state is noted, before the rename. */
    lease: LockLease,
    /** Run beside the state's commit, once the file is in place (a merge's history marker). */
    alongside?: () => Promise<void>,
  ): Promise<FileDigest> {
    const withDigest = (digest: FileDigest): DatasetState => ({
      ...state,
      items: digest.items,
      checksum: digest.checksum,
    });
    const digest = await write(async (found) => {
      await this.markPending(ref, file, withDigest(found));
      lease.assertHeld();
    });
    // Taken after the rename (which moves the ctime): the file exactly as this state describes it.
    const fingerprint = await fingerprintOf(file);
    await settleBoth(this.commit(ref, file, withDigest(digest), fingerprint), alongside?.());
    return digest;
  }

  /**
   * Whether the file is still as its state was committed: its fingerprint is the one recorded then
   * (file-fingerprint.ts), no crash left a pending state, and no full check was asked for (`verify`).
   */
  async asCommitted(record: FileStoreRecord, file: string, verify: boolean | undefined): Promise<boolean> {
    if (verify || record.pending !== undefined || typeof record.fingerprint !== 'string') return false;
    return record.fingerprint === (await fingerprintOf(file));
  }
}
