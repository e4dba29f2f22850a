/**
 * The contract between a sync run and where its data lands. A sync run fetches pages
 * and hands them to a store; the store alone decides how a dataset's items and its next
 * lastUpdatedDate are committed together. Two implementations: files + a state file (the embedded
 * default, store/file/) and PostgreSQL (store/postgres/).
 *
 * Identity: `owner` is the single collision-free encoding of whose data this is,
 * from which the state key, a file store's directory and a queue's job id are all derived.
 *
 * store/: this seam, and beside it
 *   identity.ts          one collision-free encoding for directory, file name, state key and job
 *                        id; names kept apart on case-insensitive file systems
 *   read-checkpoint.ts   where an interrupted full read stands
 *   dataset-activity.ts  webhook runs, latencies, missed changes, the last reconcile
 *   dataset-history.ts   a change's provenance and why a removed item left
 *   dataset-schema.ts    the items' fields and their JSON types
 *   file/, postgres/     the two stores (headers in file/file-store.ts, postgres/postgres-store.ts)
 */
import type { ItemId } from '../dataset/item-id.js';
import type { DatasetActivity } from './dataset-activity.js';
import type { ChangeOrigin, HistoryEntry, RemovalReason } from './dataset-history.js';
import type { DatasetSchema } from './dataset-schema.js';
import type { FullLoadOptions, ReadCheckpoint, TakenCheckpoint } from './read-checkpoint.js';

export type { FullLoadOptions, ReadCheckpoint, TakenCheckpoint } from './read-checkpoint.js';

export type StoredItem = Record<string, unknown> & { id: ItemId };

/** One run's hold on its dataset (DatasetStore.claimRun). */
export interface RunClaim {
  release(): Promise<void>;
}

export interface DatasetRef {
  /** The user the data belongs to ('' for a plain CLI sync without a user). Raw, as received. */
  userId: string;
  /** The dataset key (spec 4.3 rule 6): path plus the sorted filter as a query string, e.g. `/expenses?type=PENDING`. */
  dataset: string;
  path: string;
  filter: Readonly<Record<string, string>>;
  /** API root the data came from, without a trailing slash. */
  baseUrl: string;
  /**
   * A fingerprint of the access token (a short hash, never the token): a store refuses to merge
   * changes fetched with one token into data synced with another.
   */
  tokenFingerprint: string;
}

/**
 * A dataset's state after a commit. In the state handed to `commit`/`applyChanges`/`saveDocument`,
 * `items` and `checksum` are not known yet: the store sets them from what it holds after the commit.
 */
export interface DatasetState {
  /** Exactly as the server returned it, from the FIRST page of the run (the earliest). */
  lastUpdatedDate: string;
  items: number;
  syncedAt: string;
  mode: 'full' | 'incremental' | 'document';
  tokenFingerprint: string;
  /** Store-specific integrity data (the file store keeps a checksum of the file here). */
  checksum?: string | undefined;
  /** The run that committed this state (its changes carry the same id in the history). */
  run?: string | undefined;
  /**
   * The items' top-level fields and their JSON types, as seen so far (dataset-schema.ts): what the
   * next run's drift is measured against. Absent before the first run that saw an item.
   */
  schema?: DatasetSchema | undefined;
}

export interface ChangeSet {
  /** Items from `data`: inserted or replaced by id (number 7 and string "7" are the same id). */
  upserts: readonly StoredItem[];
  /** Ids from `deletedIds` that are not also in upserts. */
  deletedIds: readonly ItemId[];
  /**
   * A repair (reconcile): count the dataset's items after the change instead of moving the previous
   * count, which the difference being repaired may have made wrong.
   */
  recount?: boolean | undefined;
  /** Where the changes came from: recorded with each change in the dataset's history. */
  origin?: ChangeOrigin | undefined;
  /**
   * Keep each removed item as a tombstone (its last content, when and why it left) instead of only
   * forgetting it; `reasons` says why, by idKey (an id without one is recorded as deleted).
   */
  keepDeleted?: boolean | undefined;
  reasons?: ReadonlyMap<string, RemovalReason> | undefined;
  /**
   * Check the stored data in full against its state even when the store's cheap check (the file
   * store's fingerprint, file-fingerprint.ts) says it is as committed and there is nothing to merge.
   */
  verify?: boolean | undefined;
}

export interface CommitResult {
  total: number;
  upserted: number;
  removed: number;
}

/** A full read in progress: pages stream in, and nothing is visible to readers until `commit`. */
export interface FullLoad {
  /**
   * `bytes`: the response the items were parsed from (by JSON.parse, unchanged since), when they
   * come from one: a store may keep each item's bytes as they stand there instead of serialising it.
   */
  add(items: readonly StoredItem[], bytes?: Buffer): Promise<void>;
  /** Replaces the dataset and its state in one step. */
  commit(state: DatasetState): Promise<CommitResult>;
  /**
   * Drops everything added; the previous data and state stay as they were. A resumable load told
   * to keep its checkpoint drops only what came after the last one, for a later run to continue.
   */
  abort(options?: { keepCheckpoint?: boolean | undefined }): Promise<void>;
  /**
   * Resumable loads only: makes every page added so far durable together with where the read
   * stands, replacing the previous checkpoint in one step (a crash leaves one or the other). A store
   * may write it behind the read (Postgres does, at a cadence: PostgresStoreOptions'
   * checkpointCadence): its promise then settles before the write, and `abort` with keepCheckpoint,
   * or a commit that fails, writes what is owed before it returns.
   */
  checkpoint?(at: ReadCheckpoint): Promise<void>;
}

/**
 * Why a run reads the dataset in full: never synced into this store's location, asked for, the
 * data was gone, or another access token now reads it (it may see other data).
 */
export type FullReadReason = 'first-sync' | 'requested' | 'data-missing' | 'token-changed';

/** How much of a history to read, and who is told of what could not be read. */
export interface HistoryOptions {
  /** Without an id: the last `last` changes only (the file store reads them from the end of its log). */
  last?: number | undefined;
  /** Told how many stored lines were skipped, unread (too long, not JSON): the file store's log. */
  onSkipped?: ((lines: number) => void) | undefined;
}

export interface DatasetStore {
  readonly kind: 'files' | 'postgres';
  /**
   * Whether readItems gives each item's keys in the order the service sent them (a file does;
   * Postgres's jsonb reorders them): reconcile then compares items as serialised, and hashes them
   * canonically only where they differ.
   */
  readonly keepsKeyOrder: boolean;
  /** Where the data goes, for people: the output directory, or the database and schema (no password). */
  readonly location?: string | undefined;
  /** Where the state is kept, for people: the state file, or the database (no password). */
  readonly stateLocation: string;
  /**
   * getState with the reason there is none (the next run is then full). Stores without it are read
   * with getState, and a missing state counts as a first sync.
   */
  stateWithReason?(ref: DatasetRef): Promise<{ state: DatasetState } | { state: undefined; reason: FullReadReason }>;
  /**
   * The committed state, or undefined (never synced, or its data is gone: the next run is full).
   * Throws LedgerhookError reason 'owner_mismatch' when the dataset's data belongs to another owner.
   */
  getState(ref: DatasetRef): Promise<DatasetState | undefined>;
  beginFull(ref: DatasetRef, options?: FullLoadOptions): Promise<FullLoad>;
  /**
   * Stores that keep interrupted full reads: the checkpoint of this dataset, if one was
   * left, taken for this run alone (a checkpoint another live run is writing is not offered).
   */
  takeCheckpoint?(ref: DatasetRef): Promise<TakenCheckpoint | undefined>;
  /**
   * Stores several processes share (Postgres): the dataset held for one run at a time, from before
   * the run reads its state until it ends; undefined when another run holds it. The hold ends with
   * the process that took it.
   */
  claimRun?(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<RunClaim | undefined>;
  /**
   * Upserts, deletes and moves the state together: data and state never disagree. Data that no
   * longer matches its state (damaged) is refused with reason 'data_file_damaged', never merged.
   */
  applyChanges(ref: DatasetRef, changes: ChangeSet, state: DatasetState): Promise<CommitResult>;
  /** A non-paginated endpoint known to be a document (spec 4.3 rule 1: /userTaxSetup). */
  saveDocument(ref: DatasetRef, body: unknown, state: DatasetState): Promise<void>;
  /** Where a dataset's data lives, for people: its file, or its table; nothing is created. */
  placeOf(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string;
  /** Every dataset with a state in this store, with where its data lives and its recorded activity. */
  list(): Promise<
    Array<{
      ref: Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>;
      state: DatasetState;
      place: string;
      activity?: DatasetActivity | undefined;
    }>
  >;
  /** Every stored item of a dataset, streamed (reconcile compares them with the server's). */
  readItems(ref: DatasetRef): AsyncIterable<StoredItem>;
  /**
   * Changes what is remembered of a dataset's activity (dataset-activity.ts), never its data or state;
   * a dataset without a state has nothing to remember it by, and is left as it is.
   */
  updateActivity(ref: DatasetRef, change: (previous: DatasetActivity | undefined) => DatasetActivity): Promise<void>;
  /**
   * The recorded versions of one item (oldest first), or of every item, each with where it came from;
   * kept `historyDays` (a store option). Full reads are not itemised: they replace the dataset.
   */
  history(ref: Pick<DatasetRef, 'userId' | 'dataset'>, id?: ItemId, options?: HistoryOptions): Promise<HistoryEntry[]>;
  /** The items removed while tombstones were kept, each with its last content, when and why it left. */
  tombstones(ref: Pick<DatasetRef, 'userId' | 'dataset'>, options?: HistoryOptions): Promise<HistoryEntry[]>;
  reset(ref: Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>): Promise<boolean>;
  close(): Promise<void>;
}
