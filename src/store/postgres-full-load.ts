import type pg from 'pg';
import type { CommitResult, DatasetRef, DatasetState, FullLoad, StoredItem } from './dataset-store.js';
import { compareIds, type ItemId } from '../sync/item-id.js';
import { copyItems } from './postgres-copy.js';
import { datasetLockKey, dedupeById, upsertItems, writeState } from './postgres-rows.js';

/**
 * A full read into Postgres: one transaction on a dedicated connection that first deletes the
 * dataset's rows and then upserts each page as it arrives. Under MVCC every reader keeps seeing
 * the previous rows until COMMIT, so the dataset is replaced atomically while memory holds one
 * page at a time. A crash or abort before commit rolls everything back: data and state stay old.
 */
export class PostgresFullLoad implements FullLoad {
  readonly #client: pg.PoolClient;
  readonly #ref: DatasetRef;
  readonly #wrap: (error: unknown) => Error;
  #open = true;
  /** The page being written while the caller fetches the next one (at most one: memory stays flat). */
  #inFlight: Promise<void> | undefined;
  /**
   * While every id so far came in ascending order, no page can repeat an earlier id: pages go in
   * with COPY (the cheapest insert). Once the order breaks, the rest are upserted (a repeated id
   * then replaces the earlier row), so any order stays correct. Only the largest id is remembered.
   */
  #ascending = true;
  #largestId: ItemId | undefined;
  /** Rows written: every copied row is new, and an upsert counts the rows it created. */
  #rows = 0;

  private constructor(client: pg.PoolClient, ref: DatasetRef, wrap: (error: unknown) => Error) {
    this.#client = client;
    this.#ref = ref;
    this.#wrap = wrap;
  }

  static async begin(pool: pg.Pool, ref: DatasetRef, wrap: (error: unknown) => Error): Promise<PostgresFullLoad> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw wrap(error);
    }
    const load = new PostgresFullLoad(client, ref, wrap);
    try {
      await client.query('BEGIN');
      // Serialises with any other run of this dataset (an incremental one locks the same row).
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [datasetLockKey(ref)]);
      await client.query('DELETE FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2', [ref.userId, ref.dataset]);
    } catch (error) {
      await load.abort();
      throw wrap(error);
    }
    return load;
  }

  /**
   * Starts writing a page and returns once the previous page is written: Postgres stores page N
   * while the sync parses page N+1, and no more than two pages are ever held.
   */
  async add(items: readonly StoredItem[]): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    await this.#settle();
    const page = dedupeById(items);
    const copyable = this.#ascending && this.#stillAscending(page);
    const writing = (
      copyable ? copyItems(this.#client, this.#ref, page) : upsertItems(this.#client, this.#ref, page)
    ).then((rows) => {
      this.#rows += rows;
    });
    writing.catch(() => {}); // observed by the next add or commit
    this.#inFlight = writing;
  }

  #stillAscending(page: readonly StoredItem[]): boolean {
    for (const item of page) {
      if (this.#largestId !== undefined && compareIds(item.id, this.#largestId) <= 0) {
        this.#ascending = false;
        return false;
      }
      this.#largestId = item.id;
    }
    return true;
  }

  async #settle(): Promise<void> {
    const writing = this.#inFlight;
    this.#inFlight = undefined;
    if (!writing) return;
    try {
      await writing;
    } catch (error) {
      await this.abort();
      throw this.#wrap(error);
    }
  }

  async commit(state: DatasetState): Promise<CommitResult> {
    if (!this.#open) throw new Error('full load already finished');
    await this.#settle();
    try {
      // The dataset was emptied first, so the rows written are the dataset: no count(*) needed.
      const total = this.#rows;
      await writeState(this.#client, this.#ref, { ...state, items: total });
      await this.#client.query('COMMIT');
      this.#release();
      return { total, upserted: total, removed: 0 };
    } catch (error) {
      await this.abort();
      throw this.#wrap(error);
    }
  }

  async abort(): Promise<void> {
    if (!this.#open) return;
    // A write still running must end before ROLLBACK is sent on the same connection.
    await this.#inFlight?.catch(() => {});
    this.#inFlight = undefined;
    try {
      await this.#client.query('ROLLBACK');
      this.#release();
    } catch (error) {
      // A connection that cannot roll back is broken: destroy it rather than reuse it.
      this.#release(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #release(error?: Error): void {
    if (!this.#open) return;
    this.#open = false;
    this.#client.release(error);
  }
}
