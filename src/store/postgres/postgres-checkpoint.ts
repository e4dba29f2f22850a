import type pg from 'pg';
import type { DatasetRef } from '../dataset-store.js';
import { isReadCheckpoint, type ReadCheckpoint, type TakenCheckpoint } from '../read-checkpoint.js';
import { dropKept, type KeptCount } from './postgres-page-keeper.js';
import { datasetLockKey } from './postgres-rows.js';
import { checkOut } from './postgres-connect.js';

/**
 * A dedicated connection holding the dataset's advisory lock for as long as a resumable read runs,
 * from before its checkpoint is read until its load ends: a session lock, not a transaction's (the
 * load's transaction begins on this connection once the checkpoint is taken). It is the same lock
 * every other run of the dataset takes (an incremental one in its transaction), so runs never
 * overlap, and Postgres drops it with the connection when the process dies: a crash never leaves
 * it held.
 */
export class DatasetSession {
  readonly client: pg.PoolClient;
  readonly #key: string;
  /** The lock's number, in SQL, from the key ($1). */
  readonly #lock: string;
  #open = true;

  private constructor(client: pg.PoolClient, key: string, lock: string) {
    this.client = client;
    this.#key = key;
    this.#lock = lock;
  }

  /**
   * The session, or undefined when `wait` is false and another run holds the lock. `purpose` picks
   * the lock: the dataset's data (every write takes it) or its run (postgres-run-claim.ts). Their
   * texts differ (a run's is `<schema> run <data key>`), so their 64-bit hashes coincide only by a
   * chance too small to matter, and a run holding its claim still takes the data lock as it writes.
   * The schema in a run's key keeps deployments in two schemas of one database from waiting on
   * each other's runs.
   */
  static async open(
    pool: pg.Pool,
    ref: Pick<DatasetRef, 'userId' | 'dataset'>,
    wrap: (error: unknown) => Error,
    wait: boolean,
    purpose: 'data' | 'run' = 'data',
  ): Promise<DatasetSession | undefined> {
    const client = await checkOut(pool, wrap);
    // Data keys start with a digit (the userId's length), so `run ` never makes one of them.
    const key = purpose === 'data' ? datasetLockKey(ref) : `run ${datasetLockKey(ref)}`;
    const lock =
      purpose === 'data'
        ? 'hashtextextended($1, 0)'
        : "hashtextextended(coalesce(current_schema(), '') || ' ' || $1, 0)";
    try {
      if (wait) await client.query(`SELECT pg_advisory_lock(${lock})`, [key]);
      else {
        const got = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${lock}) AS locked`, [key]);
        if (got.rows[0]?.locked !== true) {
          client.release();
          return undefined;
        }
      }
      return new DatasetSession(client, key, lock);
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw wrap(error);
    }
  }

  /** Drops the dataset's kept pages and checkpoint (autocommit). */
  clear(ref: DatasetRef): Promise<void> {
    return dropKept(this.client, ref);
  }

  /** Unlocks and gives the connection back (a broken one, or one the caller says broke, is destroyed). */
  async end(broken?: Error): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    if (broken) {
      this.client.release(broken);
      return;
    }
    try {
      await this.client.query('ROLLBACK').catch(() => {});
      await this.client.query(`SELECT pg_advisory_unlock(${this.#lock})`, [this.#key]);
      this.client.release();
    } catch (error) {
      this.client.release(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** A checkpoint row taken with the dataset's lock: continued by PostgresResumableLoad, or discarded. */
export class PostgresTakenCheckpoint implements TakenCheckpoint {
  readonly session: DatasetSession;
  readonly ref: DatasetRef;
  readonly checkpoint: ReadCheckpoint | undefined;
  readonly damaged: string | undefined;
  /** What the checkpoint row says it kept (the pages found added up to it, unless damaged). */
  readonly kept: KeptCount;

  constructor(session: DatasetSession, ref: DatasetRef, checkpoint: unknown, kept: KeptCount, found: KeptCount) {
    this.session = session;
    this.ref = ref;
    this.checkpoint = isReadCheckpoint(checkpoint) ? checkpoint : undefined;
    this.kept = kept;
    this.damaged =
      this.checkpoint === undefined
        ? 'its record cannot be read'
        : found.pages !== kept.pages || found.items !== kept.items
          ? `its kept pages do not match the record (${found.pages} of ${kept.pages} pages, ${found.items} of ${kept.items} items)`
          : undefined;
  }

  async discard(): Promise<void> {
    try {
      await this.session.clear(this.ref);
    } finally {
      await this.session.end();
    }
  }

  release(): Promise<void> {
    return this.session.end();
  }
}

/** The dataset's checkpoint row, taken for this run; undefined when there is none or a live run holds it. */
export async function takePostgresCheckpoint(
  pool: pg.Pool,
  ref: DatasetRef,
  wrap: (error: unknown) => Error,
): Promise<TakenCheckpoint | undefined> {
  const params = [ref.userId, ref.dataset];
  const query =
    'SELECT checkpoint, staged_pages, staged_items FROM ledgerhook_checkpoint WHERE user_id = $1 AND dataset = $2';
  let any: pg.QueryResult;
  try {
    // Most runs find none: that costs one query and no lock.
    any = await pool.query(query, params);
  } catch (error) {
    throw wrap(error);
  }
  if (any.rowCount === 0) return undefined;
  const session = await DatasetSession.open(pool, ref, wrap, false);
  if (!session) return undefined;
  try {
    const row = (
      await session.client.query<{ checkpoint: unknown; staged_pages: number; staged_items: string }>(query, params)
    ).rows[0];
    if (!row) {
      await session.end();
      return undefined;
    }
    const found = await session.client.query<{ pages: string; items: string }>(
      `SELECT coalesce(sum(pages), 0) AS pages, coalesce(sum(items), 0) AS items
       FROM ledgerhook_staged_pages WHERE user_id = $1 AND dataset = $2`,
      params,
    );
    const count = (pages: unknown, items: unknown): KeptCount => ({ pages: Number(pages), items: Number(items) });
    return new PostgresTakenCheckpoint(
      session,
      ref,
      row.checkpoint,
      count(row.staged_pages, row.staged_items),
      count(found.rows[0]?.pages ?? 0, found.rows[0]?.items ?? 0),
    );
  } catch (error) {
    await session.end();
    throw wrap(error);
  }
}
