import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LedgerhookError } from '../../errors.js';
import { DEFAULT_HISTORY_DAYS } from '../../defaults.js';
import { AtomicItemWriter } from './atomic-item-writer.js';
import type { FileDigest, Item } from './data-file.js';
import { settleBoth, writeDocumentAtomically } from './durable-replace.js';
import { FullReadWriter } from './full-read-writer.js';
import type {
  ChangeSet,
  CommitResult,
  DatasetRef,
  DatasetState,
  DatasetStore,
  FullLoad,
  FullLoadOptions,
  FullReadReason,
  StoredItem,
  TakenCheckpoint,
} from '../dataset-store.js';
import { takeFileCheckpoint } from './full-read-checkpoint.js';
import { resumableFullLoad } from './resumable-full-load.js';
import { mergeIntoFile } from './file-store-merge.js';
import { type FileStoreRecord, recordKey, StateFile, type StateRecords } from './file-store-state.js';
import { datasetFileName, normaliseBaseUrl, stateKey, userDirName } from '../identity.js';
import type { DatasetActivity } from '../dataset-activity.js';
import { readItems } from './read-items.js';
import type { ItemId } from '../../dataset/item-id.js';
import type { HistoryEntry } from '../dataset-history.js';
import { foldTombstones } from './change-log.js';
import { FileChangeLog } from './file-change-log.js';
import { prepareDatasetDirectory } from './dataset-directory.js';
import { fingerprintOf } from './file-fingerprint.js';
import { assertOwner, FileStoreRecords, stateOf } from './file-store-records.js';
import { withDatasetLock } from './dataset-lock.js';
import type { LockLease } from './lock-lease.js';

export interface FileStoreOptions {
  /** Directory of the data files; a user's files go in `<outDir>/<userDirName(userId)>/`. */
  outDir: string;
  /** The state file (the CLI puts `state.json` beside its settings). */
  stateFile: string;
  /** Days of change history kept beside each data file (default 90); current tombstones are always kept. */
  historyDays?: number | undefined;
  /** How long a write waits for another process writing the same dataset (ms; default 60 s: dataset-lock.ts). */
  lockWaitMs?: number | undefined;
}

type Ref = Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>;

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * The embedded store: one JSON file per dataset (one item per line, sorted by id) under an output
 * directory, and a state file. Each file belongs to exactly one owner (user or token) on one
 * server; another owner's changes are never merged into it.
 */
export class FileStore implements DatasetStore {
  readonly kind = 'files' as const;
  readonly keepsKeyOrder = true;
  readonly outDir: string;
  readonly stateFile: StateFile;
  readonly #log: FileChangeLog;
  readonly #records: FileStoreRecords;
  readonly #lockWaitMs: number | undefined;

  constructor(options: FileStoreOptions) {
    this.outDir = resolve(options.outDir);
    this.stateFile = new StateFile(options.stateFile);
    this.#log = new FileChangeLog(options.historyDays ?? DEFAULT_HISTORY_DAYS);
    this.#records = new FileStoreRecords(this.stateFile);
    this.#lockWaitMs = options.lockWaitMs;
  }

  /** Runs a write of the dataset's file under its lock across processes (dataset-lock.ts). */
  #locked<T>(file: string, write: (lease: LockLease) => Promise<T>): Promise<T> {
    return withDatasetLock(file, { waitMs: this.#lockWaitMs }, write);
  }

  get stateLocation(): string {
    return this.stateFile.path;
  }

  get location(): string {
    return this.outDir;
  }

  /** A dataset's record key: one per output directory, so two project folders never share a state. */
  #key(ref: Parameters<typeof stateKey>[0]): string {
    return recordKey(this.outDir, stateKey(ref));
  }

  /** Where a dataset's file is: pure, nothing is created. */
  fileFor(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string {
    const dir = ref.userId === '' ? this.outDir : join(this.outDir, userDirName(ref.userId));
    return join(dir, datasetFileName(ref.dataset));
  }

  /** Creates the file's directory inside the output directory (never through a symlink out of it). */
  async #prepare(ref: DatasetRef): Promise<string> {
    const file = this.fileFor(ref);
    await prepareDatasetDirectory(this.outDir, file, datasetFileName(ref.dataset));
    return file;
  }

  /** A file belongs to the first owner that synced it; anyone else is refused. */
  #assertOwner(records: StateRecords, ref: DatasetRef, file: string): void {
    assertOwner(records, this.#key(ref), ref, file);
  }

  async getState(ref: DatasetRef): Promise<DatasetState | undefined> {
    return (await this.stateWithReason(ref)).state;
  }

  async stateWithReason(
    ref: DatasetRef,
  ): Promise<{ state: DatasetState } | { state: undefined; reason: FullReadReason }> {
    const file = this.fileFor(ref);
    const records = await this.stateFile.read();
    this.#assertOwner(records, ref, file);
    const record = records[this.#key(ref)];
    if (!record || record.file !== file) return { state: undefined, reason: 'first-sync' };
    // A state without its file (deleted by hand) would make an incremental run drop everything else:
    // the run is a full read instead (rebuilt from the server, nothing lost).
    if (!(await exists(file))) return { state: undefined, reason: 'data-missing' };
    // A user's data read with another token now: that token may see other data, so it is read whole.
    if (record.tokenFingerprint !== ref.tokenFingerprint) return { state: undefined, reason: 'token-changed' };
    return { state: stateOf(record) };
  }

  /** Notes the state of a file about to be renamed into place, so a crash right after is no damage. */
  async #markPending(ref: DatasetRef, file: string, state: DatasetState): Promise<void> {
    await this.stateFile.update((records) => {
      this.#assertOwner(records, ref, file);
      const record = records[this.#key(ref)];
      // Only its item count and checksum are ever compared: the schema would double the record.
      const { schema: _schema, ...pending } = state;
      if (record) record.pending = pending;
      return { write: record !== undefined, result: undefined };
    });
  }

  async #commitState(ref: DatasetRef, file: string, state: DatasetState, fingerprint?: string): Promise<void> {
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
    await this.stateFile.update((records) => {
      this.#assertOwner(records, ref, file);
      const key = this.#key(ref);
      const activity = records[key]?.activity;
      records[key] = activity ? { ...record, activity } : record;
      return { write: true, result: undefined };
    });
  }

  async #install(
    ref: DatasetRef,
    file: string,
    state: DatasetState,
    write: (before: (digest: FileDigest) => Promise<void>) => Promise<FileDigest>,
    /** The dataset's lock (#locked): checked once the pending state is noted, before the rename. */
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
      await this.#markPending(ref, file, withDigest(found));
      lease.assertHeld();
    });
    // Taken after the rename (which moves the ctime): the file exactly as this state describes it.
    const fingerprint = await fingerprintOf(file);
    await settleBoth(this.#commitState(ref, file, withDigest(digest), fingerprint), alongside?.());
    return digest;
  }

  async beginFull(ref: DatasetRef, options: FullLoadOptions = {}): Promise<FullLoad> {
    const file = await this.#prepare(ref);
    this.#assertOwner(await this.stateFile.read(), ref, file);
    if (options.resumable || options.resume)
      return resumableFullLoad(file, options.resume, (state, write) =>
        this.#locked(file, (lease) => this.#install(ref, file, state, write, lease)),
      );
    const writer = await FullReadWriter.create(file);
    return {
      add: (items) => writer.add(items),
      commit: async (state) => {
        const digest = await this.#locked(file, (lease) =>
          this.#install(ref, file, state, (before) => writer.commit(before), lease),
        );
        return { total: digest.items, upserted: digest.items, removed: 0 };
      },
      abort: () => writer.discard(),
    };
  }

  /** The checkpoint of an interrupted full read left beside the dataset's file (full-read-checkpoint.ts). */
  async takeCheckpoint(ref: DatasetRef): Promise<TakenCheckpoint | undefined> {
    return takeFileCheckpoint(await this.#prepare(ref));
  }

  async applyChanges(ref: DatasetRef, changes: ChangeSet, state: DatasetState): Promise<CommitResult> {
    const file = await this.#prepare(ref);
    // From reading the state to committing the merged file's: no other process merges meanwhile.
    return this.#locked(file, (lease) => this.#merge(ref, file, changes, state, lease));
  }

  async #merge(
    ref: DatasetRef,
    file: string,
    changes: ChangeSet,
    state: DatasetState,
    lease: LockLease,
  ): Promise<CommitResult> {
    const records = await this.stateFile.read();
    this.#assertOwner(records, ref, file);
    const record = records[this.#key(ref)];
    if (!record || !(await exists(file)))
      throw new LedgerhookError('ERR_IO', `${file} is missing: its changes have nothing to be merged into`, {
        details: { reason: 'data_file_damaged', path: file },
      });
    // Nothing to merge into a file as committed (one stat) is no read at all; a merge always checks it.
    const nothingToMerge = changes.upserts.length === 0 && changes.deletedIds.length === 0 && !changes.recount;
    if (nothingToMerge && (await this.#asCommitted(record, file, changes))) {
      if (changes.origin) await this.#log.record(file, record, changes, []);
      const kept = { ...state, run: changes.origin?.run, items: record.items, checksum: record.checksum };
      await this.#commitState(ref, file, kept, record.fingerprint);
      if (changes.origin) await this.#log.committed(file, changes.origin);
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
    // Issue 23: written while the new file is flushed to disk; the rename waits for both.
    const origin = changes.origin;
    const logged = origin ? this.#log.record(file, record, changes, removed) : undefined;
    logged?.catch(() => {}); // waited for before the rename; a commit that fails first drops the run
    await this.#install(
      ref,
      file,
      { ...state, run: origin?.run },
      (before) => writer.commit((digest) => settleBoth(before(digest), logged)),
      lease,
      // The run's marker once its data is durably in place, beside the state's commit: either one
      // alone already makes the run's changes count (change-log.ts), in whichever order they land.
      origin ? () => this.#log.committed(file, origin) : undefined,
    );
    return result;
  }

  /**
   * Whether the file is still as its state was committed: its fingerprint is the one recorded then
   * (file-fingerprint.ts), no crash left a pending state, and no full check was asked for.
   */
  async #asCommitted(record: FileStoreRecord, file: string, changes: ChangeSet): Promise<boolean> {
    if (changes.verify || record.pending !== undefined || typeof record.fingerprint !== 'string') return false;
    return record.fingerprint === (await fingerprintOf(file));
  }

  history(ref: Pick<DatasetRef, 'userId' | 'dataset'>, id?: ItemId): Promise<HistoryEntry[]> {
    return this.#log.history(this.fileFor(ref), this.stateFile, id);
  }

  async tombstones(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<HistoryEntry[]> {
    return foldTombstones(await this.history(ref));
  }

  async saveDocument(ref: DatasetRef, body: unknown, state: DatasetState): Promise<void> {
    const file = await this.#prepare(ref);
    this.#assertOwner(await this.stateFile.read(), ref, file);
    await this.#locked(file, (lease) =>
      this.#install(ref, file, state, (before) => writeDocumentAtomically(file, body, before), lease),
    );
  }

  /** Every record with its key (for `state list`). */
  async records(): Promise<Array<[string, FileStoreRecord]>> {
    return Object.entries(await this.stateFile.read());
  }

  placeOf(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string {
    return this.fileFor(ref);
  }

  list(): ReturnType<FileStoreRecords['list']> {
    return this.#records.list();
  }

  readItems(ref: DatasetRef): AsyncIterable<StoredItem> {
    return readItems(this.fileFor(ref));
  }

  updateActivity(ref: DatasetRef, change: (previous: DatasetActivity | undefined) => DatasetActivity) {
    return this.#records.updateActivity(this.#key(ref), change);
  }

  /** Forgets the records of `keys`; files are kept. Returns the keys that were there. */
  forget(keys: readonly string[]): Promise<string[]> {
    return this.#records.forget(keys);
  }

  /** Forgets a dataset of a user on a server (any server when baseUrl is ''), for every token. */
  reset(ref: Ref): Promise<boolean> {
    return this.#records.reset(ref);
  }

  async close(): Promise<void> {}
}
