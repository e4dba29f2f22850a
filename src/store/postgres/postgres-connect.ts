import pg from 'pg';
import { LedgerhookError } from '../../errors.js';
import { checkServiceUrl, redactUrl } from '../../util/service-url.js';

/**
 * A bounded pg pool from a postgres:// URL. The URL may carry `?options=-c search_path=NAME` to
 * keep ledgerhook's tables in their own schema (tests use one schema each).
 */
export function createPostgresPool(url: string, maxConnections: number): pg.Pool {
  checkServiceUrl(url, ['postgres:', 'postgresql:'], 'store', 'store_url_invalid');
  const pool = new pg.Pool({
    connectionString: url,
    max: Math.max(1, maxConnections),
    // A dead database must fail a run, not hang it.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // A client losing its connection must not crash the process: an idle one is the pool's (its
  // 'error' event), a checked-out one is ours, and pg-pool stops listening to it while we hold it.
  // Either way the query in flight, or the next one, rejects with the error and reports it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** A client checked out of the pool; a failure to connect is said as `wrap` says it (storeError). */
export async function checkOut(pool: pg.Pool, wrap: (error: unknown) => Error): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw wrap(error);
  }
}

/** Turns a connection or query failure into one neutral line naming the store. */
export function storeError(error: unknown, url: string): LedgerhookError {
  if (error instanceof LedgerhookError) return error;
  const err = error as NodeJS.ErrnoException & { code?: string };
  const network = ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH'].includes(err.code ?? '');
  // A timeout reported by Postgres itself (a SQLSTATE, e.g. statement_timeout) is the store failing, not unreachable.
  const timedOut = !/^[0-9A-Z]{5}$/.test(err.code ?? '') && /timeout/i.test(err.message ?? '');
  if (network || timedOut)
    return new LedgerhookError('ERR_NETWORK', `cannot reach the Postgres store ${redactUrl(url)}: ${err.message}`, {
      cause: error,
      details: { reason: 'store_unreachable' },
    });
  // Class 28 (invalid authorization): the login the URL describes was refused; no user name in it is the usual slip.
  if (/^28/.test(err.code ?? '')) {
    const userInUrl = userOf(url) !== '';
    return new LedgerhookError(
      userInUrl ? 'ERR_AUTH' : 'ERR_USAGE',
      `the Postgres store ${redactUrl(url)} refused the login: ${err.message}${userInUrl ? '' : ' (the URL names no user)'}`,
      { cause: error, details: { reason: 'store_login_failed', userInUrl, sqlState: err.code } },
    );
  }
  // A value Postgres refuses (a data exception, a value past a limit) is refused again on every try:
  // a failure of what was synced, named as far as Postgres names it, never one to retry.
  if (/^22|^54000$/.test(err.code ?? '')) {
    // Where Postgres says which row of a COPY it was (its context also quotes the value: financial
    // data, kept out of messages and logs).
    const where = (error as { where?: unknown }).where;
    const line = typeof where === 'string' ? /\bline (\d+)/.exec(where)?.[1] : undefined;
    const context = line ? ` (row ${line} of the load)` : '';
    return new LedgerhookError(
      'ERR_BAD_RESPONSE',
      `the Postgres store ${redactUrl(url)} cannot hold a value of this data: ${err.message}${context}; nothing was changed`,
      { cause: error, details: { reason: 'item_not_storable', sqlState: err.code } },
    );
  }
  return new LedgerhookError('ERR_IO', `the Postgres store ${redactUrl(url)} failed: ${err.message}`, {
    cause: error,
    details: { reason: 'store_failed', sqlState: err.code },
  });
}

/** The user name a postgres:// URL gives ('' for none). */
function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username);
  } catch {
    return '';
  }
}
