import { AscendingIds } from './ascending-ids.js';
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
import { CopyStream, copyField, copyRows } from './postgres-copy.js';
import { finishMerge } from './postgres-merge.js';
import { dedupeById, rowKey, rowsWithKeys, UPSERT_BATCH, writeState } from './postgres-rows.js';

const STAGE_COPY = 'COPY ledgerhook_staging (user_id, dataset, item_id, item) FROM STDIN';

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
  /** Ids so far ascending (a fresh read only), and the largest: pages go in with COPY. */
  readonly #order: AscendingIds;
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
    this.#order = new AscendingIds(rows === undefined);
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

  async #begin(): Promise<void> {
    if (this.#inTransaction) return;
    await this.#client.query('BEGIN');
    // A checkpoint need not wait for the disk: only a server crash could lose it, and that empties
    // the unlogged staged rows anyway (the row count then says the checkpoint is no longer good).
    await this.#client.query('SET LOCAL synchronous_commit = off');
    this.#inTransaction = true;
  }

  async #stage(page: readonly StoredItem[]): Promise<void> {
    await this.#begin();
    // While ids ascend no page can repeat a staged id: COPY, the cheapest insert. After the first
    // page out of order (and in a continued read, whose staged ids are not known here) pages are
    // upserted: a repeated id replaces the staged row, the later page winning.
    if (this.#order.see(page)) {
      const copy = await CopyStream.open(this.#client, STAGE_COPY);
      try {
        await copy.write(copyRows(page, `${copyField(this.#ref.userId)}\t${copyField(this.#ref.dataset)}\t`));
        this.#rows += await copy.end();
      } catch (error) {
        await copy.abort();
        throw error;
      }
      return;
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

  /**
   * Commits the pages staged since the last checkpoint together with this one. It runs behind the
   * page's staging, while the sync fetches the next page; a failure surfaces at the next add or at
   * the commit (an abort waits for it, so what Ctrl-C reports as kept is committed).
   */
  async checkpoint(at: ReadCheckpoint): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    const staging = this.#inFlight;
    const saving = (async () => {
      await staging;
      await this.#begin();
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
    })();
    saving.catch(() => {}); // observed by the next add or the commit
    this.#inFlight = saving;
  }

  /** Moves the staged rows into the dataset; returns its row count. Into no rows, a plain insert. */
  async #publish(): Promise<number> {
    const params = [this.#ref.userId, this.#ref.dataset];
    const existing = await this.#client.query(
      'SELECT 1 FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 LIMIT 1',
      params,
    );
    if ((existing.rowCount ?? 0) > 0) return finishMerge(this.#client, this.#ref, undefined, STAGED);
    const inserted = await this.#client.query(
      `INSERT INTO ledgerhook_items (user_id, dataset, item_id, item) SELECT $1, $2, s.item_id, s.item FROM ${STAGED} AS s`,
      params,
    );
    return inserted.rowCount ?? 0;
  }

  async commit(state: DatasetState): Promise<CommitResult> {
    if (!this.#open) throw new Error('full load already finished');
    await this.#settle();
    try {
      await this.#begin();
      // The commit is durable as any other: synchronous_commit back on for this transaction.
      await this.#client.query('SET LOCAL synchronous_commit = on');
      await this.#client.query('SET LOCAL statement_timeout = 0');
      const total = await this.#publish();
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
