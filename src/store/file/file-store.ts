/**
 * store/file/: the JSON file store, FileStore (this file): one data file per dataset, sorted by id,
 * and the state file that commits with it.
 *   writing    atomic-item-writer.ts (a new version beside the old, put in place by commit),
 *              write-behind.ts, full-read-writer.ts, page-lines.ts, durable-replace.ts, temp-name.ts
 *   merging    file-store-merge.ts (unchanged runs copied as slices), item-line-chunks.ts, merge-commit.ts
 *   state      state-commit.ts (pending before the rename, committed after), file-store-state.ts,
 *              file-store-records.ts, file-checksum.ts (the one checksum), file-fingerprint.ts
 *   locks      dataset-lock.ts (one per data file, across processes), lock-lease.ts
 *   history    change-log.ts, change-log-read.ts, file-change-log.ts
 *   resuming   full-read-checkpoint.ts, resumable-full-load.ts, checkpoint-record-file.ts,
 *              staged-bytes.ts, regular-file.ts (never through a symlink)
 *   format     data-file.ts (a JSON array, one item per line), read-items.ts, write-failed.ts
 *   layout     dataset-directory.ts (every file inside --out), layout-migration.ts, stale-temp-files.ts
 */
import { join, resolve } from 'node:path';
import { DEFAULT_HISTORY_DAYS } from '../../defaults.js';
import { dataFileExists } from './data-file.js';
import { writeDocumentAtomically } from './durable-replace.js';
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
  HistoryOptions,
  StoredItem,
  TakenCheckpoint,
} from '../dataset-store.js';
import { takeFileCheckpoint } from './full-read-checkpoint.js';
import { resumableFullLoad } from './resumable-full-load.js';
import { mergeAndCommit } from './merge-commit.js';
import { type FileStoreRecord, outDirKey, recordKey, StateFile } from './file-store-state.js';
import { migrateLayout } from './layout-migration.js';
import { datasetFileName, stateKey, userDirName } from '../identity.js';
import type { DatasetActivity } from '../dataset-activity.js';
import { readItems } from './read-items.js';
import type { ItemId } from '../../dataset/item-id.js';
import type { HistoryEntry } from '../dataset-history.js';
import { foldTombstones } from './change-log.js';
import { FileChangeLog } from './file-change-log.js';
import { prepareDatasetDirectory } from './dataset-directory.js';
import { FileStoreRecords, isRecordOf, stateOf } from './file-store-records.js';
import { StateCommit } from './state-commit.js';
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
  /**
   * The clock the dataset lock's refreshes are stamped with (default the wall clock, which other
   * processes judge the lock by): a test stalls it to stand for a process that stood still.
   */
  lockClock?: (() => number) | undefined;
}

type Ref = Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>;

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
  readonly #lockClock: (() => number) | undefined;
  /** How a commit is recorded in the state file, around the rename (state-commit.ts). */
  readonly #commits: StateCommit;
  /** Datasets of an earlier layout moved to their names (layout-migration.ts), once per store. */
  #layout: Promise<void> | undefined;

  constructor(options: FileStoreOptions) {
    this.outDir = resolve(options.outDir);
    this.stateFile = new StateFile(options.stateFile);
    this.#log = new FileChangeLog(options.historyDays ?? DEFAULT_HISTORY_DAYS);
    this.#records = new FileStoreRecords(this.stateFile);
    this.#lockWaitMs = options.lockWaitMs;
    this.#lockClock = options.lockClock;
    this.#commits = new StateCommit(this.stateFile, (ref) => this.#key(ref), outDirKey(this.outDir));
  }

  /**
   * Before the first use of a file: every dataset of this output directory where identity.ts names
   * it now. A refusal (both names there) is said again by the next use, not remembered.
   */
  #migrated(): Promise<void> {
    const outDir = { path: this.outDir, key: outDirKey(this.outDir) };
    this.#layout ??= migrateLayout(this.stateFile, outDir, (record) => this.fileFor(record)).catch((error: unknown) => {
      this.#layout = undefined;
      throw error;
    });
    return this.#layout;
  }

  /** The record of the dataset's file in this output directory, found by its userId and dataset. */
  async #recordOf(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<FileStoreRecord | undefined> {
    const outDir = outDirKey(this.outDir);
    return Object.entries(await this.stateFile.read()).find(([key, record]) =>
      isRecordOf(key, record, outDir, ref),
    )?.[1];
  }

  /** Runs a write of the dataset's file under its lock across processes (dataset-lock.ts). */
  #locked<T>(file: string, write: (lease: LockLease) => Promise<T>): Promise<T> {
    return withDatasetLock(file, { waitMs: this.#lockWaitMs, now: this.#lockClock }, write);
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
    await this.#migrated();
    const file = this.fileFor(ref);
    await prepareDatasetDirectory(this.outDir, file, datasetFileName(ref.dataset));
    return file;
  }

  async getState(ref: DatasetRef): Promise<DatasetState | undefined> {
    return (await this.stateWithReason(ref)).state;
  }

  async stateWithReason(
    ref: DatasetRef,
  ): Promise<{ state: DatasetState } | { state: undefined; reason: FullReadReason }> {
    await this.#migrated();
    const file = this.fileFor(ref);
    const record = await this.#commits.read(ref, file);
    if (!record || record.file !== file) return { state: undefined, reason: 'first-sync' };
    // A state without its file (deleted by hand) would make an incremental run drop everything else:
    // the run is a full read instead (rebuilt from the server, nothing lost).
    if (!(await dataFileExists(file))) return { state: undefined, reason: 'data-missing' };
    // A user's data read with another token now: that token may see other data, so it is read whole.
    if (record.tokenFingerprint !== ref.tokenFingerprint) return { state: undefined, reason: 'token-changed' };
    return { state: stateOf(record) };
  }

  async beginFull(ref: DatasetRef, options: FullLoadOptions = {}): Promise<FullLoad> {
    const file = await this.#prepare(ref);
    await this.#commits.read(ref, file); // its owner checked before anything is written
    if (options.resumable || options.resume)
      return resumableFullLoad(file, options.resume, (state, write) =>
        this.#locked(file, (lease) => this.#commits.install(ref, file, state, write, lease)),
      );
    const writer = await FullReadWriter.create(file);
    return {
      add: (items, bytes) => writer.add(items, bytes),
      commit: async (state) => {
        const digest = await this.#locked(file, (lease) =>
          this.#commits.install(ref, file, state, (before) => writer.commit(before), lease),
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
    return this.#locked(file, (lease) => mergeAndCommit(this.#commits, this.#log, ref, file, changes, state, lease));
  }

  async history(
    ref: Pick<DatasetRef, 'userId' | 'dataset'>,
    id?: ItemId,
    options?: HistoryOptions,
  ): Promise<HistoryEntry[]> {
    await this.#migrated();
    const record = await this.#recordOf(ref);
    return this.#log.history(this.fileFor(ref), [record?.run, record?.pending?.run], id, options);
  }

  async tombstones(ref: Pick<DatasetRef, 'userId' | 'dataset'>, options?: HistoryOptions): Promise<HistoryEntry[]> {
    return foldTombstones(await this.history(ref, undefined, { onSkipped: options?.onSkipped }));
  }

  async saveDocument(ref: DatasetRef, body: unknown, state: DatasetState): Promise<void> {
    const file = await this.#prepare(ref);
    await this.#commits.read(ref, file); // its owner checked before anything is written
    await this.#locked(file, (lease) =>
      this.#commits.install(ref, file, state, (before) => writeDocumentAtomically(file, body, before), lease),
    );
  }

  /** Every record with its key (for `state list`). */
  async records(): Promise<Array<[string, FileStoreRecord]>> {
    return Object.entries(await this.stateFile.read());
  }

  placeOf(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string {
    return this.fileFor(ref);
  }

  async list(): ReturnType<FileStoreRecords['list']> {
    await this.#migrated();
    return this.#records.list();
  }

  async *readItems(ref: DatasetRef): AsyncIterable<StoredItem> {
    await this.#migrated();
    yield* readItems(this.fileFor(ref));
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
