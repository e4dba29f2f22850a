/**
 * store/postgres/: the Postgres store (this file). postgres-schema.ts the tables and migrations;
 * postgres-copy.ts, postgres-full-load.ts, postgres-merge.ts a full read through one COPY, merged at
 * the commit; postgres-changes.ts, postgres-repeats.ts, postgres-rows.ts, postgres-history.ts an
 * incremental run's changes; postgres-resumable-load.ts, postgres-page-keeper.ts,
 * postgres-checkpoint.ts resumable reads on the connection that holds the dataset's advisory lock.
 */
import type pg from 'pg';
import { LedgerhookError } from '../../errors.js';
import type {
  ChangeSet,
  CommitResult,
  DatasetRef,
  DatasetState,
  DatasetStore,
  FullLoad,
  FullLoadOptions,
  RunClaim,
  StoredItem,
  TakenCheckpoint,
} from '../dataset-store.js';
import { takePostgresCheckpoint } from './postgres-checkpoint.js';
import { claimPostgresRun } from './postgres-run-claim.js';
import { type CheckpointCadence, PostgresResumableLoad } from './postgres-resumable-load.js';
import { checkOut, createPostgresPool, storeError } from './postgres-connect.js';
import { redactUrl } from '../../util/service-url.js';
import { PostgresFullLoad } from './postgres-full-load.js';
import { assertStorable, STATE_COLUMNS, stateFromRow, writeState, type StateRow } from './postgres-rows.js';
import { migrate, type MigrationResult } from './postgres-schema.js';
import { readItemRows, updateActivityRow } from './postgres-activity.js';
import { applyChangeSet } from './postgres-changes.js';
import { readHistoryRows, readTombstoneRows } from './postgres-history.js';
import type { HistoryEntry } from '../dataset-history.js';
import { DEFAULT_CHECKPOINT_CADENCE, DEFAULT_HISTORY_DAYS } from '../../defaults.js';
import { activityFrom, type DatasetActivity } from '../dataset-activity.js';

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db (a `?options=-c search_path=NAME` picks the schema). */
  url: string;
  /**
   * Connections at most in each of its pools (a worker needs one per concurrent job, plus one): the
   * queries' pool, and, opened on first use, the runs' claims (claimRun) and a resumable read's
   * kept pages (two). A worker may so hold about twice this many, plus two.
   */
  maxConnections?: number | undefined;
  /** Days of change history kept (default 90); current tombstones are kept regardless. */
  historyDays?: number | undefined;
  /**
   * When a resumable read writes its checkpoint with the pages since the last one: once this many
   * bytes or pages are owed, or this many milliseconds after the last write began (default
   * DEFAULT_CHECKPOINT_CADENCE: 1 MiB, 8 pages, 1 s). A crash re-reads at most that much.
   */
  checkpointCadence?: Partial<CheckpointCadence> | undefined;
}

type RefKey = Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>;

/**
 * The Postgres implementation of DatasetStore: rows in ledgerhook_items, one state
 * row per (user, dataset) in ledgerhook_state. Every change of data commits together with its
 * state in one transaction, so data and state can never disagree.
 */
export class PostgresStore implements DatasetStore {
  readonly kind = 'postgres' as const;
  /** Items are json: the text synced, keys in the service's order. */
  readonly keepsKeyOrder = true;
  readonly url: string;
  readonly #pool: pg.Pool;
  readonly #connect: (maxConnections: number) => pg.Pool;
  /** A resumable read's kept pages are written through a pool of their own, opened on first use. */
  #keeperPool: pg.Pool | undefined;
  /** Runs' claims hold a connection each for as long as they run: a pool of their own, opened on first use. */
  #claimPool: pg.Pool | undefined;
  readonly #maxConnections: number;
  readonly #historyDays: number;
  readonly #cadence: CheckpointCadence;
  #ready: Promise<MigrationResult> | undefined;

  constructor(options: PostgresStoreOptions) {
    this.url = redactUrl(options.url);
    this.#maxConnections = options.maxConnections ?? 4;
    this.#pool = createPostgresPool(options.url, this.#maxConnections);
    this.#connect = (max) => createPostgresPool(options.url, max);
    this.#historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS;
    const cadence = options.checkpointCadence;
    this.#cadence = {
      bytes: cadence?.bytes ?? DEFAULT_CHECKPOINT_CADENCE.bytes,
      pages: cadence?.pages ?? DEFAULT_CHECKPOINT_CADENCE.pages,
      ms: cadence?.ms ?? DEFAULT_CHECKPOINT_CADENCE.ms,
    };
  }

  /** Creates or upgrades the tables (idempotent); every other method calls it first. */
  migrate(): Promise<MigrationResult> {
    this.#ready ??= this.#withClient((client) => migrate(client)).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * Rows are keyed by (user, dataset) only, so the owner is checked here, as the file store does:
   * data synced with another access token or from another server is never merged into or replaced.
   */
  async getState(ref: DatasetRef): Promise<DatasetState | undefined> {
    const row = await this.#one(ref);
    if (!row) return undefined;
    const otherToken = row.token_fingerprint !== '' && row.token_fingerprint !== ref.tokenFingerprint;
    const otherServer = row.base_url !== '' && row.base_url !== ref.baseUrl.replace(/\/+$/, '');
    if (otherToken || otherServer)
      throw new LedgerhookError(
        'ERR_USAGE',
        `${ref.dataset} of user "${ref.userId}" in ${redactUrl(this.url)} was synced from ${row.base_url} ${
          otherToken ? `with another access token (fingerprint ${row.token_fingerprint})` : 'from another server'
        }; data of different accounts or servers is never merged`,
        { details: { reason: 'store_owner_mismatch', dataset: ref.dataset } },
      );
    return stateFromRow(row);
  }

  async beginFull(ref: DatasetRef, options: FullLoadOptions = {}): Promise<FullLoad> {
    assertStorable(ref);
    await this.migrate();
    const wrap = (error: unknown) => storeError(error, this.url);
    if (options.resumable || options.resume) {
      this.#keeperPool ??= this.#connect(2);
      return PostgresResumableLoad.begin(this.#pool, this.#keeperPool, ref, wrap, options.resume, this.#cadence);
    }
    return PostgresFullLoad.begin(this.#pool, ref, wrap);
  }

  /** The checkpoint row of an interrupted full read of the dataset (postgres-checkpoint.ts). */
  async takeCheckpoint(ref: DatasetRef): Promise<TakenCheckpoint | undefined> {
    assertStorable(ref);
    await this.migrate();
    return takePostgresCheckpoint(this.#pool, ref, (error) => storeError(error, this.url));
  }

  /** The dataset held for this run alone, across processes (postgres-run-claim.ts). */
  async claimRun(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<RunClaim | undefined> {
    assertStorable(ref);
    this.#claimPool ??= this.#connect(this.#maxConnections);
    return claimPostgresRun(this.#claimPool, ref, (error) => storeError(error, this.url));
  }

  async applyChanges(ref: DatasetRef, changes: ChangeSet, state: DatasetState): Promise<CommitResult> {
    assertStorable(ref);
    await this.migrate();
    return this.#transaction((client) => applyChangeSet(client, ref, changes, state, this.#historyDays));
  }

  async saveDocument(ref: DatasetRef, body: unknown, state: DatasetState): Promise<void> {
    assertStorable(ref);
    await this.migrate();
    await this.#transaction(async (client) => {
      await client.query('DELETE FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2', [ref.userId, ref.dataset]);
      // A document is one row with the empty item id.
      await client.query(
        'INSERT INTO ledgerhook_items (user_id, dataset, item_id, item, updated_at) VALUES ($1, $2, $3, $4::json, now())',
        [ref.userId, ref.dataset, '', JSON.stringify(body)],
      );
      await writeState(client, ref, { ...state, items: 1, mode: 'document' });
    });
  }

  get stateLocation(): string {
    return this.url;
  }

  placeOf(): string {
    return `ledgerhook_items in ${this.url}`;
  }

  async list(): Promise<Array<{ ref: RefKey; state: DatasetState; place: string; activity?: DatasetActivity }>> {
    await this.migrate();
    const result = await this.#withClient((client) =>
      client.query<StateRow & { activity: unknown }>(
        `SELECT ${STATE_COLUMNS}, activity FROM ledgerhook_state ORDER BY user_id, dataset`,
      ),
    );
    return result.rows.map((row) => {
      const activity = activityFrom(row.activity);
      return {
        ref: { userId: row.user_id, dataset: row.dataset, baseUrl: row.base_url },
        state: stateFromRow(row),
        place: this.placeOf(),
        ...(activity ? { activity } : {}),
      };
    });
  }

  async *readItems(ref: DatasetRef): AsyncGenerator<StoredItem> {
    assertStorable(ref);
    await this.migrate();
    yield* readItemRows((work) => this.#withClient(work), ref);
  }

  async history(ref: Pick<DatasetRef, 'userId' | 'dataset'>, id?: StoredItem['id']): Promise<HistoryEntry[]> {
    assertStorable(ref);
    await this.migrate();
    return this.#withClient((client) => readHistoryRows(client, ref, id));
  }

  async tombstones(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<HistoryEntry[]> {
    assertStorable(ref);
    await this.migrate();
    return this.#withClient((client) => readTombstoneRows(client, ref));
  }

  async updateActivity(ref: DatasetRef, change: (previous: DatasetActivity | undefined) => DatasetActivity) {
    assertStorable(ref);
    await this.migrate();
    await this.#transaction((client) => updateActivityRow(client, ref, change));
  }

  /** Forgets the state and the rows of a dataset: the next run is a full one. */
  async reset(ref: RefKey): Promise<boolean> {
    await this.migrate();
    return this.#transaction(async (client) => {
      await client.query('DELETE FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2', [ref.userId, ref.dataset]);
      const result = await client.query('DELETE FROM ledgerhook_state WHERE user_id = $1 AND dataset = $2', [
        ref.userId,
        ref.dataset,
      ]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  /** Every item of a dataset, ordered by id (numbers first, numerically); for tests and tools. */
  async items(ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<unknown[]> {
    await this.migrate();
    const result = await this.#withClient((client) =>
      client.query<{ item: unknown }>(
        `SELECT item FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2
         ORDER BY (item_id ~ '^-?[0-9]+$') DESC, CASE WHEN item_id ~ '^-?[0-9]+$' THEN item_id::numeric END, item_id`,
        [ref.userId, ref.dataset],
      ),
    );
    return result.rows.map((row) => row.item);
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.end(), this.#keeperPool?.end(), this.#claimPool?.end()]);
  }

  async #one(ref: RefKey): Promise<StateRow | undefined> {
    assertStorable(ref);
    await this.migrate();
    const result = await this.#withClient((client) =>
      client.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM ledgerhook_state WHERE user_id = $1 AND dataset = $2`, [
        ref.userId,
        ref.dataset,
      ]),
    );
    return result.rows[0];
  }

  async #withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await checkOut(this.#pool, (error) => storeError(error, this.url));
    try {
      return await work(client);
    } catch (error) {
      throw storeError(error, this.url);
    } finally {
      client.release();
    }
  }

  #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const value = await work(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }
}
