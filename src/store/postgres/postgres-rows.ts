import type pg from 'pg';
import { LedgerhookError } from '../../errors.js';
import type { DatasetRef, DatasetState, StoredItem } from '../dataset-store.js';
import { schemaFrom } from '../dataset-schema.js';

/**
 * Row-level SQL shared by the incremental and full paths. Items go to Postgres as ONE JSON array
 * parameter per batch (a multi-row upsert), never one statement per item.
 */

/** Postgres text cannot hold NUL: a userId carrying one is refused with a clear reason, not a driver error. */
export function assertStorable(ref: Pick<DatasetRef, 'userId' | 'dataset'>): void {
  if (ref.userId.includes('\u0000') || ref.dataset.includes('\u0000'))
    throw new LedgerhookError(
      'ERR_USAGE',
      'a userId or dataset containing a NUL character cannot be stored in Postgres',
      {
        details: { reason: 'store_value_invalid' },
      },
    );
}

/** One text per (user, dataset), collision-free (length-prefixed), for an advisory lock. */
export function datasetLockKey(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string {
  return `${ref.userId.length}:${ref.userId}${ref.dataset}`;
}

/** Items per upsert statement: large enough to amortise a round trip, small enough to keep memory flat. */
export const UPSERT_BATCH = 2000;

/**
 * The row key of an id: `String(id)`, the same for COPY, upserts and deletes (Postgres's own
 * `e->>'id'` would spell 1e21 or 1.50 otherwise). 7 and "7" are one row.
 */
export const rowKey = (id: unknown): string => String(id);

/** Rows `k.id, e.value` pairing parameter $keys (text[], from rowKey) with $items (a JSON array). */
export const rowsWithKeys = (keys: number, items: number): string =>
  `unnest($${keys}::text[]) WITH ORDINALITY AS k(id, n)
   JOIN jsonb_array_elements($${items}::jsonb) WITH ORDINALITY AS e(value, n) USING (n)`;

/** The last item of each id wins (a multi-row upsert may not touch one row twice). */
export function dedupeById(items: readonly StoredItem[]): StoredItem[] {
  const byId = new Map<string, StoredItem>();
  for (const item of items) byId.set(rowKey(item.id), item);
  return byId.size === items.length ? [...items] : [...byId.values()];
}

/** Upserts items; returns how many rows were new (not replacements). */
export async function upsertItems(
  client: pg.ClientBase,
  ref: DatasetRef,
  items: readonly StoredItem[],
): Promise<number> {
  let inserted = 0;
  const unique = dedupeById(items);
  for (let start = 0; start < unique.length; start += UPSERT_BATCH) {
    const batch = unique.slice(start, start + UPSERT_BATCH);
    const result = await client.query<{ inserted: number }>(
      `WITH upserted AS (
         INSERT INTO ledgerhook_items (user_id, dataset, item_id, item, updated_at)
         SELECT $1, $2, k.id, e.value, now() FROM ${rowsWithKeys(3, 4)}
         ON CONFLICT (user_id, dataset, item_id) DO UPDATE SET item = excluded.item, updated_at = excluded.updated_at
         RETURNING (xmax = 0) AS fresh
       )
       SELECT count(*) FILTER (WHERE fresh)::int AS inserted FROM upserted`,
      [ref.userId, ref.dataset, batch.map((item) => rowKey(item.id)), JSON.stringify(batch)],
    );
    inserted += result.rows[0]?.inserted ?? 0;
  }
  return inserted;
}

export async function countItems(client: pg.ClientBase, ref: Pick<DatasetRef, 'userId' | 'dataset'>): Promise<number> {
  const result = await client.query<{ n: string }>(
    'SELECT count(*) AS n FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2',
    [ref.userId, ref.dataset],
  );
  return Number(result.rows[0]?.n ?? 0);
}

export async function deleteItems(client: pg.ClientBase, ref: DatasetRef, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await client.query(
    'DELETE FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 AND item_id = ANY($3::text[])',
    [ref.userId, ref.dataset, ids],
  );
  return result.rowCount ?? 0;
}

export async function writeState(client: pg.ClientBase, ref: DatasetRef, state: DatasetState): Promise<void> {
  await client.query(
    `INSERT INTO ledgerhook_state
       (user_id, dataset, last_updated_date, items, synced_at, base_url, mode, token_fingerprint, schema)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
     ON CONFLICT (user_id, dataset) DO UPDATE SET
       last_updated_date = excluded.last_updated_date, items = excluded.items, synced_at = excluded.synced_at,
       base_url = excluded.base_url, mode = excluded.mode, token_fingerprint = excluded.token_fingerprint,
       schema = excluded.schema`,
    [
      ref.userId,
      ref.dataset,
      state.lastUpdatedDate,
      state.items,
      state.syncedAt,
      ref.baseUrl.replace(/\/+$/, ''),
      state.mode,
      ref.tokenFingerprint,
      // Text, not an object: pg would send a JS array as a Postgres array.
      state.schema ? JSON.stringify(state.schema) : null,
    ],
  );
}

export interface StateRow {
  user_id: string;
  dataset: string;
  last_updated_date: string;
  items: string;
  synced_at: Date;
  base_url: string;
  mode: string;
  token_fingerprint: string;
  schema: unknown;
}

export const STATE_COLUMNS =
  'user_id, dataset, last_updated_date, items, synced_at, base_url, mode, token_fingerprint, schema';

export function stateFromRow(row: StateRow): DatasetState {
  const mode = row.mode === 'incremental' || row.mode === 'document' ? row.mode : 'full';
  const schema = schemaFrom(row.schema);
  return {
    lastUpdatedDate: row.last_updated_date,
    items: Number(row.items),
    syncedAt: row.synced_at.toISOString(),
    mode,
    tokenFingerprint: row.token_fingerprint,
    ...(schema ? { schema } : {}),
  };
}
