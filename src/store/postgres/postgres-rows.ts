import type pg from 'pg';
import { canonical, type ItemId, showId } from '../../dataset/item-id.js';
import { LedgerhookError } from '../../errors.js';
import type { DatasetRef, DatasetState, StoredItem } from '../dataset-store.js';
import { schemaFrom } from '../dataset-schema.js';

/**
 * Row-level SQL shared by the incremental and full paths. Items go to Postgres as ONE JSON array
 * parameter per batch (a multi-row upsert), never one statement per item.
 */

/**
 * Bytes a row key may take, and a userId and dataset together. Postgres indexes (user, dataset, item
 * id) in B-tree entries of at most 2704 bytes: two of these fit, and no real id comes near one.
 */
export const MAX_ROW_KEY_BYTES = 1024;

/** A UTF-16 surrogate without its pair (UTF-8 has no bytes for it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether Postgres stores this string as it stands (pg would send a lone surrogate as U+FFFD). */
export const isStorableText = (text: string): boolean => !text.includes('\u0000') && !LONE_SURROGATE.test(text);

/**
 * A userId or dataset is a key of every row: one Postgres cannot hold exactly (a NUL, or a lone
 * surrogate, which would be stored as U+FFFD and meet another user's), or too long to index beside
 * an item's key, is refused with a clear reason.
 */
export function assertStorable(ref: Pick<DatasetRef, 'userId' | 'dataset'>): void {
  const why =
    !isStorableText(ref.userId) || !isStorableText(ref.dataset)
      ? 'containing a NUL character or an unpaired surrogate'
      : Buffer.byteLength(ref.userId) + Buffer.byteLength(ref.dataset) > MAX_ROW_KEY_BYTES
        ? `longer than ${MAX_ROW_KEY_BYTES} bytes together`
        : undefined;
  if (why)
    throw new LedgerhookError('ERR_USAGE', `a userId and dataset ${why} cannot be stored in Postgres`, {
      details: { reason: 'store_value_invalid' },
    });
}

/** One text per (user, dataset), collision-free (length-prefixed), for an advisory lock. */
export function datasetLockKey(ref: Pick<DatasetRef, 'userId' | 'dataset'>): string {
  return `${ref.userId.length}:${ref.userId}${ref.dataset}`;
}

/** Items per upsert statement: large enough to amortise a round trip, small enough to keep memory flat. */
export const UPSERT_BATCH = 2000;

/**
 * The row key of an id, the same for COPY, upserts and deletes: the id's canonical form as text, so
 * 7 and "7" are one row, as they are one item everywhere (item-id.ts). A string id that text cannot
 * hold as it stands (a NUL, a lone surrogate) is kept as its JSON text instead, and so is one that
 * starts with a double quote, so that no two ids share a key.
 */
export const rowKey = (id: ItemId): string => {
  if (typeof id === 'number') return String(id);
  const key = canonical(id);
  if (typeof key === 'number') return String(key);
  return key.startsWith('"') || !isStorableText(key) ? JSON.stringify(key) : key;
};

/** An item Postgres cannot hold: a permanent failure that names it (retrying brings the same item). */
export function notStorable(id: ItemId, why: string): LedgerhookError {
  const shown = showId(id);
  return new LedgerhookError(
    'ERR_BAD_RESPONSE',
    `the item with the id ${shown.length > 80 ? `${shown.slice(0, 60)}…` : shown} cannot be stored in Postgres: ${why}; nothing was changed`,
    { details: { reason: 'item_not_storable', id: shown.slice(0, 200) } },
  );
}

/** The row key of an item about to be written, refused (named) when no index entry can hold it. */
export function insertKey(id: ItemId): string {
  const key = rowKey(id);
  if (key.length * 3 > MAX_ROW_KEY_BYTES && Buffer.byteLength(key) > MAX_ROW_KEY_BYTES)
    throw notStorable(id, `its id takes ${Buffer.byteLength(key)} bytes, more than the ${MAX_ROW_KEY_BYTES} a key may`);
  return key;
}

/** The id a row key was made from, as far as the key says (a number's key reads as its string). */
export const idOfRowKey = (key: string): string => (key.startsWith('"') ? (JSON.parse(key) as string) : key);

/**
 * Rows `k.id, e.value` pairing parameter $keys (text[], from rowKey) with $items (a JSON array). The
 * array is json, not jsonb: each element keeps its text as sent (any string, \u0000 included).
 */
export const rowsWithKeys = (keys: number, items: number): string =>
  `unnest($${keys}::text[]) WITH ORDINALITY AS k(id, n)
   JOIN json_array_elements($${items}::json) WITH ORDINALITY AS e(value, n) USING (n)`;

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
      [ref.userId, ref.dataset, batch.map((item) => insertKey(item.id)), JSON.stringify(batch)],
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
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json)
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
