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
import { DEFAULT_CHECKPOINT_CADENCE } from '../../defaults.js';
import { DatasetSession, PostgresTakenCheckpoint } from './postgres-checkpoint.js';
import { PostgresFullLoad } from './postgres-full-load.js';
import { dropKept, MAX_PENDING_PAGES, PageKeeper } from './postgres-page-keeper.js';

/**
 * Owed pages that are due whatever the cadence says: half the keeper's bound, so that the pages
 * added while the due write is in flight never reach it (a read past it is no longer kept).
 */
const MAX_OWED_PAGES = MAX_PENDING_PAGES / 2;

/** When a checkpoint asked for is written (DEFAULT_CHECKPOINT_CADENCE): whichever comes first. */
export interface CheckpointCadence {
  /** Bytes of pages owed (their COPY rows). */
  bytes: number;
  /** Pages owed; above 8 counts as 8 (more could pass the pages the keeper holds). */
  pages: number;
  /** Milliseconds since the last write began; a checkpoint owed meanwhile is written then by a timer. */
  ms: number;
}

/**
 * A full read into Postgres that a later run can continue. It is an all-or-nothing load
 * (PostgresFullLoad: one transaction, pages copied in as they come, readers seeing the previous
 * dataset until its commit) on a connection that holds the dataset's lock for its session, plus a
 * PageKeeper that writes the checkpoint with the pages since the last one on another connection
 * while the read goes on. Keeping them costs one statement per checkpoint written, never a second
 * pass over the rows. Checkpoints are written at a cadence (every megabyte, 8 pages or second by
 * default), not each page's: fewer statements, each sending more at once, cost the read less, and a
 * crash re-reads at most the pages owed. The commit drops what was kept in the load's own
 * transaction; a continued read first feeds the kept pages to its load, as if it had just read them.
 */
export class PostgresResumableLoad implements FullLoad {
  readonly #session: DatasetSession;
  readonly #keeper: PageKeeper;
  #load: PostgresFullLoad | undefined;
  /** The checkpoint write in flight, the checkpoint to write next, and a write that failed. */
  #saving: Promise<void> | undefined;
  #wanted: { at: ReadCheckpoint; through: number } | undefined;
  #failed: Error | undefined;
  readonly #cadence: CheckpointCadence;
  /** When the last checkpoint write began (performance.now()), and the timer that writes one owed since. */
  #lastWrite = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  /** The read is ending with its checkpoint kept: what is owed is written whatever the cadence. */
  #draining = false;
  #open = true;
  /** The load gave its connection back as broken: it is destroyed, not reused, when the read ends. */
  #broken: Error | undefined;

  private constructor(session: DatasetSession, keeper: PageKeeper, cadence: CheckpointCadence) {
    this.#session = session;
    this.#keeper = keeper;
    this.#cadence = cadence;
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
    cadence: CheckpointCadence = DEFAULT_CHECKPOINT_CADENCE,
  ): Promise<PostgresResumableLoad> {
    const continued = taken instanceof PostgresTakenCheckpoint && taken.damaged === undefined ? taken : undefined;
    if (!continued) await taken?.discard();
    const session = continued?.session ?? ((await DatasetSession.open(pool, ref, wrap, true)) as DatasetSession);
    const read = new PostgresResumableLoad(session, new PageKeeper(keeperPool, ref, wrap, continued?.kept), cadence);
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
   * Writes the pages added since the last checkpoint written with this one, behind the read: it
   * neither waits for their rows (the load's transaction holds them until the commit) nor makes the
   * read wait for it. The write starts once the cadence says it is due, or when its timer fires;
   * while one write is in flight the checkpoints asked for meanwhile are written as one, and a read
   * whose owed pages are due waits for the write in flight (memory holds about one batch). A crash
   * loses at most the pages owed; a stop (abort) writes what is still owed first.
   */
  checkpoint(at: ReadCheckpoint): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    if (this.#failed) return Promise.reject(this.#failed);
    this.#wanted = { at, through: this.#keeper.added };
    const due = this.#due();
    if (this.#saving) return due ? this.#saving : Promise.resolve();
    if (due) this.#write();
    else this.#arm();
    return Promise.resolve();
  }

  /** Whether what is owed is to be written now. */
  #due(): boolean {
    const owed = this.#keeper.owed;
    const cadence = this.#cadence;
    return (
      this.#draining ||
      owed.bytes >= cadence.bytes ||
      owed.pages >= Math.min(cadence.pages, MAX_OWED_PAGES) ||
      performance.now() - this.#lastWrite >= cadence.ms
    );
  }

  /** A checkpoint owed and not due is written when the cadence's time is up, unless one is written before. */
  #arm(): void {
    if (this.#timer) return;
    const wait = Math.max(0, this.#lastWrite + this.#cadence.ms - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#open && this.#wanted && !this.#saving) this.#write();
    }, wait);
    // A read that ends meanwhile writes or drops what is owed itself.
    this.#timer.unref();
  }

  #write(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#saving = this.#writeWanted();
    this.#saving.catch(() => {}); // kept in #failed, thrown by the next checkpoint, the commit or written()
  }

  /** Writes the latest checkpoint asked for, and again while another is asked for meanwhile and due. */
  async #writeWanted(): Promise<void> {
    try {
      for (let wanted = this.#wanted; wanted !== undefined; wanted = this.#due() ? this.#wanted : undefined) {
        this.#wanted = undefined;
        this.#lastWrite = performance.now();
        await this.#keeper.save(wanted.at, wanted.through);
      }
    } catch (error) {
      this.#failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      this.#saving = undefined;
      if (this.#open && this.#wanted && !this.#failed) this.#arm();
    }
  }

  /** The checkpoint writes in flight, to their end (a failure is thrown). */
  async #written(): Promise<void> {
    while (this.#saving) await this.#saving;
    if (this.#failed) throw this.#failed;
  }

  async commit(state: DatasetState): Promise<CommitResult> {
    const load = this.#started;
    // Nothing owed is written before the commit, which drops what was kept anyway; if the commit
    // fails, it is written then, so that the next run goes on from where this one's events said.
    const owed = this.#wanted;
    this.#wanted = undefined;
    clearTimeout(this.#timer);
    try {
      await this.#written();
    } catch (error) {
      this.#wanted = owed;
      await this.abort({ keepCheckpoint: true });
      throw error;
    }
    // From here the read ends either way: committed, or rolled back with what was kept left as it
    // is (the next run checks it before it goes on).
    this.#open = false;
    try {
      return await load.commit(state);
    } catch (error) {
      // Still under the dataset's lock. Had the COMMIT gone through after all, the next run finds
      // the dataset committed since the checkpoint's base, and drops it.
      if (owed) {
        this.#wanted = owed;
        this.#draining = true;
        this.#write();
        await this.#written().catch(() => {});
      }
      throw error;
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
    clearTimeout(this.#timer);
    // A checkpoint asked for is written before the read ends, so that what the run reported kept is.
    if (!options?.keepCheckpoint) this.#wanted = undefined;
    else {
      this.#draining = true;
      if (this.#wanted && !this.#saving && !this.#failed) this.#write();
    }
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
