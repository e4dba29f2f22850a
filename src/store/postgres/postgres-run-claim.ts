import type pg from 'pg';
import type { DatasetRef, RunClaim } from '../dataset-store.js';
import { DatasetSession } from './postgres-checkpoint.js';

/**
 * A run's claim on its dataset, across every process on the database: a session advisory lock of
 * its own on a dedicated connection, taken before the run reads its state and held until it ends.
 * The queue can hand one job to two workers (a worker too busy to renew its lock in time is taken
 * for dead), and a reconcile job may come while a sync runs; the second finds the claim taken and
 * makes no request. Postgres drops it with the connection, so a dead worker never leaves it held.
 */
export async function claimPostgresRun(
  pool: pg.Pool,
  ref: Pick<DatasetRef, 'userId' | 'dataset'>,
  wrap: (error: unknown) => Error,
): Promise<RunClaim | undefined> {
  const session = await DatasetSession.open(pool, ref, wrap, false, 'run');
  return session && { release: () => session.end() };
}
