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
import { finishMerge } from './postgres-merge.js';
import { dedupeById, rowKey, rowsWithKeys, UPSERT_BATCH, writeState } from './postgres-rows.js';

/** The staged rows of one dataset, as finishMerge reads them ($1 user, $2 dataset). */
const STAGED = '(SELECT item_id, item FROM ledgerhook_staging WHERE user_id = $1 AND dataset = $2)';

/**
 * A full read into Postgres that a later run can continue (issue 21). Pages go into
 * ledgerhook_staging; each checkpoint commits the pages added since the last one together with the
 * checkpoint row (one transaction: the row never counts rows that are not there). The commit merges
 * the staged rows into ledgerhook_items, writes the state and drops staging and checkpoint, all in
 * one transaction: readers see the previous dataset until then, as with PostgresFullLoad. A repeated
 * id replaces the staged row (the later page wins), so any order is right.
 */
export class PostgresResumableLoad implements FullLoad {
  readonly #session: DatasetSession;
  readonly #ref: DatasetRef;
  readonly #wrap: (error: unknown) => Error;
  /** Distinct rows staged: what the checkpoint row records, so that a resumed run can check them. */
  #rows: number;
  #inTransaction = false;
  #inFlight: Promise<void> | undefined;
  #saved: boolean;
  #open = true;

  /** `rows`: staged by the checkpoint continued (its row exists), or undefined for a fresh read. */
  private constructor(session: DatasetSession, ref: DatasetRef, wrap: (error: unknown) => Error, rows?: number) {
    this.#session = session;
    this.#ref = ref;
    this.#wrap = wrap;
    this.#rows = rows ?? 0;
    this.#saved = rows !== undefined;
  }

  static async begin(
    pool: pg.Pool,
    ref: DatasetRef,
    wrap: (error: unknown) => Error,
    taken: TakenCheckpoint | undefined,
  ): Promise<PostgresResumableLoad> {
    if (taken instanceof PostgresTakenCheckpoint && taken.damaged === undefined)
      return new PostgresResumableLoad(taken.session, ref, wrap, taken.stagedRows);
    await taken?.discard();
    const session = (await DatasetSession.open(pool, ref, wrap, true)) as DatasetSession;
    try {
      // What an abandoned read left is not this read's.
      await session.clear(ref);
    } catch (error) {
      await session.end();
      throw wrap(error);
    }
    return new PostgresResumableLoad(session, ref, wrap);
  }

  get #client(): pg.PoolClient {
    return this.#session.client;
  }

  /** Starts staging a page; the previous one must be staged first (one page in flight). */
  async add(items: readonly StoredItem[]): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    await this.#settle();
    const writing = this.#stage(dedupeById(items));
    writing.catch(() => {}); // observed by the next add, checkpoint or commit
    this.#inFlight = writing;
  }

  async #stage(page: readonly StoredItem[]): Promise<void> {
    if (!this.#inTransaction) {
      await this.#client.query('BEGIN');
      this.#inTransaction = true;
    }
    for (let start = 0; start < page.length; start += UPSERT_BATCH) {
      const batch = page.slice(start, start + UPSERT_BATCH);
      const result = await this.#client.query<{ fresh: number }>(
        `WITH staged AS (
           INSERT INTO ledgerhook_staging (user_id, dataset, item_id, item)
           SELECT $1, $2, k.id, e.value FROM ${rowsWithKeys(3, 4)}
           ON CONFLICT (user_id, dataset, item_id) DO UPDATE SET item = excluded.item
           RETURNING (xmax = 0) AS fresh
         )
         SELECT count(*) FILTER (WHERE fresh)::int AS fresh FROM staged`,
        [this.#ref.userId, this.#ref.dataset, batch.map((item) => rowKey(item.id)), JSON.stringify(batch)],
      );
      this.#rows += result.rows[0]?.fresh ?? 0;
    }
  }

  async #settle(): Promise<void> {
    const writing = this.#inFlight;
    this.#inFlight = undefined;
    if (!writing) return;
    try {
      await writing;
    } catch (error) {
      await this.abort({ keepCheckpoint: true });
      throw this.#wrap(error);
    }
  }

  async checkpoint(at: ReadCheckpoint): Promise<void> {
    await this.#settle();
    try {
      if (!this.#inTransaction) await this.#client.query('BEGIN');
      this.#inTransaction = true;
      await this.#client.query(
        `INSERT INTO ledgerhook_checkpoint (user_id, dataset, checkpoint, staged_rows, saved_at)
         VALUES ($1, $2, $3::jsonb, $4, now())
         ON CONFLICT (user_id, dataset) DO UPDATE SET
           checkpoint = excluded.checkpoint, staged_rows = excluded.staged_rows, saved_at = excluded.saved_at`,
        [this.#ref.userId, this.#ref.dataset, JSON.stringify(at), this.#rows],
      );
      await this.#client.query('COMMIT');
      this.#inTransaction = false;
      this.#saved = true;
    } catch (error) {
      await this.abort({ keepCheckpoint: true });
      throw this.#wrap(error);
    }
  }

  async commit(state: DatasetState): Promise<CommitResult> {
    if (!this.#open) throw new Error('full load already finished');
    await this.#settle();
    try {
      if (!this.#inTransaction) await this.#client.query('BEGIN');
      this.#inTransaction = true;
      await this.#client.query('SET LOCAL statement_timeout = 0');
      const total = await finishMerge(this.#client, this.#ref, undefined, STAGED);
      await writeState(this.#client, this.#ref, { ...state, items: total });
      const params = [this.#ref.userId, this.#ref.dataset];
      await this.#client.query('DELETE FROM ledgerhook_staging WHERE user_id = $1 AND dataset = $2', params);
      await this.#client.query('DELETE FROM ledgerhook_checkpoint WHERE user_id = $1 AND dataset = $2', params);
      await this.#client.query('COMMIT');
      this.#inTransaction = false;
      this.#open = false;
      await this.#session.end();
      return { total, upserted: total, removed: 0 };
    } catch (error) {
      await this.abort({ keepCheckpoint: true });
      throw this.#wrap(error);
    }
  }

  /** Rolls back what came after the last checkpoint; without keepCheckpoint, drops the staged rows too. */
  async abort(options?: { keepCheckpoint?: boolean | undefined }): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.#inFlight?.catch(() => {});
    this.#inFlight = undefined;
    try {
      if (this.#inTransaction) await this.#client.query('ROLLBACK');
      this.#inTransaction = false;
      if (!(options?.keepCheckpoint && this.#saved)) await this.#session.clear(this.#ref);
    } catch {
      // A broken connection: what it did not commit is gone with it; end() destroys it.
    } finally {
      await this.#session.end();
    }
  }
}
