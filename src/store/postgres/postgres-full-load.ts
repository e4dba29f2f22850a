import { AscendingIds } from './ascending-ids.js';
import type pg from 'pg';
import type { CommitResult, DatasetRef, DatasetState, FullLoad, StoredItem } from '../dataset-store.js';
import { CopyStream, copyField } from './postgres-copy.js';
import { allowRepeats, beginMerge, finishMerge, STAGE_COPY } from './postgres-merge.js';
import { pageRows } from './postgres-page-text.js';
import { upsertRepeating } from './postgres-repeats.js';
import { datasetLockKey, dedupeById, writeState } from './postgres-rows.js';
import { checkOut } from './postgres-connect.js';

/** What a load built on this one (a resumable read, postgres-resumable-load.ts) adds to it. */
export interface FullLoadHooks {
  /** Each page as COPY rows (pageRows: serialised once, for the load's COPY and for this). */
  onPage?: ((rows: readonly Buffer[], items: number) => void) | undefined;
  /** Runs in the load's transaction just before its COMMIT. */
  beforeCommit?: ((client: pg.ClientBase) => Promise<void>) | undefined;
  /** Gives the connection back once the load has ended (default: to the pool; a broken one destroyed). */
  release?: ((client: pg.PoolClient, error?: Error) => Promise<void>) | undefined;
}

const toPool = async (client: pg.PoolClient, error?: Error) => client.release(error);

/**
 * A full read into Postgres: one transaction on a dedicated connection that writes each page as it
 * arrives, through one COPY kept open while ids ascend (postgres-copy.ts). A dataset with no rows
 * yet is copied into directly; one that has rows is staged and merged at the end (postgres-merge.ts:
 * unchanged rows are not rewritten, rows no page brought are deleted). Under MVCC every reader
 * keeps seeing the previous rows until COMMIT, so the dataset is replaced atomically while memory
 * holds one page at a time. A crash or abort before commit rolls everything back: data and state
 * stay old.
 */
export class PostgresFullLoad implements FullLoad {
  readonly #client: pg.PoolClient;
  readonly #ref: DatasetRef;
  readonly #wrap: (error: unknown) => Error;
  readonly #hooks: FullLoadHooks;
  #open = true;
  /** The page being written while the caller fetches the next one (at most one: memory stays flat). */
  #inFlight: Promise<void> | undefined;
  /**
   * While every id so far came in ascending order, no page can repeat an earlier id: pages go in
   * with COPY (the cheapest insert). Once the order breaks, the COPY ends and the rest are upserted
   * (a repeated id then replaces the earlier row), so any order stays correct. Only the largest id
   * is remembered.
   */
  readonly #order = new AscendingIds();
  #copy: CopyStream | undefined;
  /** Rows written: every copied row is new, and an upsert counts the rows it created. */
  #rows = 0;
  /** The dataset had rows when the load began: pages are merged into them. */
  readonly #merge: boolean;
  /** What each COPY row starts with: the user and dataset columns, or nothing when staging for a merge. */
  readonly #prefix: string;
  #repeatsAllowed = false;

  private constructor(
    client: pg.PoolClient,
    ref: DatasetRef,
    wrap: (error: unknown) => Error,
    merge: boolean,
    hooks: FullLoadHooks,
  ) {
    this.#client = client;
    this.#ref = ref;
    this.#wrap = wrap;
    this.#merge = merge;
    this.#hooks = hooks;
    this.#prefix = merge ? '' : `${copyField(ref.userId)}\t${copyField(ref.dataset)}\t`;
  }

  static async begin(pool: pg.Pool, ref: DatasetRef, wrap: (error: unknown) => Error): Promise<PostgresFullLoad> {
    const client = await checkOut(pool, wrap);
    return PostgresFullLoad.start(client, ref, wrap, {});
  }

  /** Begins the load's transaction on a connection it then owns (given back through `hooks.release`). */
  static async start(
    client: pg.PoolClient,
    ref: DatasetRef,
    wrap: (error: unknown) => Error,
    hooks: FullLoadHooks,
  ): Promise<PostgresFullLoad> {
    try {
      await client.query('BEGIN');
      // Serialises with any other run of this dataset (an incremental one locks the same row). A
      // connection that holds the lock for its session already (a resumable read) is granted it at once.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [datasetLockKey(ref)]);
      const existing = await client.query(
        'SELECT 1 FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 LIMIT 1',
        [ref.userId, ref.dataset],
      );
      const merge = (existing.rowCount ?? 0) > 0;
      if (merge) await beginMerge(client);
      return new PostgresFullLoad(client, ref, wrap, merge, hooks);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      await (hooks.release ?? toPool)(client, error instanceof Error ? error : new Error(String(error)));
      throw wrap(error);
    }
  }

  /**
   * Starts writing a page and returns once the previous page is written: Postgres stores page N
   * while the sync parses page N+1, and no more than two pages are ever held. The page is serialised
   * before the previous write is awaited, so that this work overlaps Postgres's.
   */
  async add(items: readonly StoredItem[]): Promise<void> {
    if (!this.#open) throw new Error('full load already finished');
    const page = dedupeById(items);
    const onPage = this.#hooks.onPage;
    const rows = this.#order.see(page) ? pageRows(page, this.#prefix) : undefined;
    const json = rows ? undefined : JSON.stringify(page);
    await this.#settle();
    onPage?.(rows ?? pageRows(page, ''), page.length);
    const writing = rows ? this.#copyPage(rows) : this.#upsertPage(page, json ?? '[]');
    writing.catch(() => {}); // observed by the next add or commit
    this.#inFlight = writing;
  }

  async #copyPage(rows: readonly Buffer[]): Promise<void> {
    if (!this.#copy) {
      // The COPY spans the whole HTTP read, retries and 429 pauses included: a statement_timeout
      // meant for queries would cut the load at an arbitrary page. The read has its own bounds
      // (pages, bytes, request timeouts); this holds for this transaction only.
      await this.#client.query('SET LOCAL statement_timeout = 0');
      this.#copy = await CopyStream.open(
        this.#client,
        this.#merge ? STAGE_COPY : 'COPY ledgerhook_items (user_id, dataset, item_id, item) FROM STDIN',
      );
    }
    for (const chunk of rows) await this.#copy.write(chunk);
  }

  /** The first page out of order ends the COPY; it and every later page are upserted. */
  async #upsertPage(page: readonly StoredItem[], json: string): Promise<void> {
    await this.#endCopy();
    if (this.#merge && !this.#repeatsAllowed) await allowRepeats(this.#client);
    this.#repeatsAllowed = true;
    const added = await upsertRepeating(this.#client, this.#ref, this.#merge ? 'stage' : 'items', page, json);
    if (!this.#merge) this.#rows += added;
  }

  async #endCopy(): Promise<void> {
    const copy = this.#copy;
    this.#copy = undefined;
    if (copy) this.#rows += await copy.end();
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
      await this.#endCopy();
      // Into an empty dataset the rows written are the dataset; a merge counts the ids it saw.
      const total = this.#merge ? await finishMerge(this.#client, this.#ref) : this.#rows;
      await writeState(this.#client, this.#ref, { ...state, items: total });
      await this.#hooks.beforeCommit?.(this.#client);
      await this.#client.query('COMMIT');
      await this.#release();
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
    const copy = this.#copy;
    this.#copy = undefined;
    await copy?.abort();
    try {
      await this.#client.query('ROLLBACK');
      await this.#release();
    } catch (error) {
      // A connection that cannot roll back is broken: destroy it rather than reuse it.
      await this.#release(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async #release(error?: Error): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await (this.#hooks.release ?? toPool)(this.#client, error);
  }
}
