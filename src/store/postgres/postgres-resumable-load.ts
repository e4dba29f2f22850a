import type pg from 'pg';
import type {
  CommitResult,
  DatasetRef,
  DatasetState,
  FullLoad,
  ReadCheckpoint,
  StoredItem,
  TakenCheckpoint,
} from '../dataset-store.js';
import { DatasetSession, PostgresTakenCheckpoint } from './postgres-checkpoint.js';
import { PostgresFullLoad } from './postgres-full-load.js';
import { dropKept, PageKeeper } from './postgres-page-keeper.js';

/**
 * A full read into Postgres that a later run can continue. It is an all-or-nothing load
 * (PostgresFullLoad: one transaction, pages copied in as they come, readers seeing the previous
 * dataset until its commit) on a connection that holds the dataset's lock for its session, plus a
 * PageKeeper that writes each checkpoint with the pages since the last one on another connection
 * while the read goes on. Keeping them costs one statement per checkpoint, never a second pass over
 * the rows. The commit drops what was kept in the load's own transaction; a continued read first
 * feeds the kept pages to its load, as if it had just read them.
 */
export class PostgresResumableLoad implements FullLoad {
  readonly #session: DatasetSession;
  readonly #keeper: PageKeeper;
  #load: PostgresFullLoad | undefined;
  /** The checkpoint write in flight, the checkpoint to write next, and a write that failed. */
  #saving: Promise<void> | undefined;
  #wanted: { at: ReadCheckpoint; through: number } | undefined;
  #failed: Error | undefined;
  #open = true;
  /** The load gave its connection back as broken: it is destroyed, not reused, when the read ends. */
  #broken: Error | undefined;

  private constructor(session: DatasetSession, keeper: PageKeeper) {
    this.#session = session;
    this.#keeper = keeper;
  }

  /**
   * A fresh read, or the read of `taken` continued (when it can be). `keeperPool` serves the
   * keeper's statements: never the pool the loads hold connections of, so that it cannot run dry.
   */
  static async begin(
    pool: pg.Pool,
    keeperPool: pg.Pool,
    ref: DatasetRef,
    wrap: (error: unknown) => Error,
    taken: TakenCheckpoint | undefined,
  ): Promise<PostgresResumableLoad> {
    const continued = taken instanceof PostgresTakenCheckpoint && taken.damaged === undefined ? taken : undefined;
    if (!continued) await taken?.discard();
    const session = continued?.session ?? ((await DatasetSession.open(pool, ref, wrap, true)) as DatasetSession);
    const read = new PostgresResumableLoad(session, new PageKeeper(keeperPool, ref, wrap, continued?.kept));
    try {
      // What an abandoned read left is not this read's.
      if (!continued) await read.#keeper.clear();
      const load = await PostgresFullLoad.start(session.client, ref, wrap, {
        onPage: (json, items) => read.#keeper.page(json, items),
        beforeCommit: (client) => dropKept(client, ref),
        // The session (and the dataset's lock) outlives the load's transaction until the read ends.
        release: async (_client, error) => {
          read.#broken ??= error;
        },
      });
      read.#load = load;
      if (continued) await read.#keeper.feed((items) => load.add(items));
    } catch (error) {
      // What was kept stays for the next run (kept pages that cannot be fed again are dropped by feed).
      await read.abort({ keepCheckpoint: true });
      throw error;
    }
    return read;
  }

  get #started(): PostgresFullLoad {
    if (!this.#open || !this.#load) throw new Error('full load already finished');
    return this.#load;
  }

  add(items: readonly StoredItem[]): Promise<void> {
    return this.#started.add(items);
  }

  /**
   * Writes the pages added since the last checkpoint with this one, behind the read: it neither waits
   * for their rows (the load's transaction holds them until the commit) nor makes the read wait for
   * it, but while one write is in flight the checkpoints asked for meanwhile wait to be written as
   * one, and a read that gets two checkpoints ahead waits for the write in flight. A crash loses at
   * most those pages; a stop (abort) writes what is still owed first.
   */
  checkpoint(at: ReadCheckpoint): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    if (this.#failed) return Promise.reject(this.#failed);
    const ahead = this.#wanted !== undefined;
    this.#wanted = { at, through: this.#keeper.added };
    if (!this.#saving) {
      this.#saving = this.#writeWanted();
      this.#saving.catch(() => {}); // kept in #failed, thrown by the next checkpoint, the commit or written()
    }
    return ahead ? this.#saving : Promise.resolve();
  }

  /** Writes the latest checkpoint asked for, and again while another was asked for meanwhile. */
  async #writeWanted(): Promise<void> {
    try {
      for (let wanted = this.#wanted; wanted !== undefined; wanted = this.#wanted) {
        this.#wanted = undefined;
        await this.#keeper.save(wanted.at, wanted.through);
      }
    } catch (error) {
      this.#failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      this.#saving = undefined;
    }
  }

  /** The checkpoint writes in flight, to their end (a failure is thrown). */
  async #written(): Promise<void> {
    while (this.#saving) await this.#saving;
    if (this.#failed) throw this.#failed;
  }

  async commit(state: DatasetState): Promise<CommitResult> {
    const load = this.#started;
    // Nothing owed is written: the commit drops what was kept anyway.
    this.#wanted = undefined;
    try {
      await this.#written();
    } catch (error) {
      await this.abort({ keepCheckpoint: true });
      throw error;
    }
    // From here the read ends either way: committed, or rolled back with what was kept left as it
    // is (the next run checks it before it goes on).
    this.#open = false;
    try {
      return await load.commit(state);
    } finally {
      await this.#session.end(this.#broken);
    }
  }

  /**
   * Rolls the load back; without keepCheckpoint, drops what was kept too, while the dataset's lock
   * is still held (no other run can have begun its own).
   */
  async abort(options?: { keepCheckpoint?: boolean | undefined }): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    // A checkpoint asked for is written before the read ends, so that what the run reported kept is.
    if (!options?.keepCheckpoint) this.#wanted = undefined;
    await this.#written().catch(() => {});
    try {
      await this.#load?.abort();
      if (!(options?.keepCheckpoint && this.#keeper.saved)) await this.#keeper.clear();
    } catch {
      // The store is unreachable: what was kept stays, and the next run checks it before going on.
    } finally {
      await this.#session.end(this.#broken);
    }
  }
}
