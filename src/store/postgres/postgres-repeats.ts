import type pg from 'pg';
import { collisionError, type ItemId, sameSpelling } from '../../dataset/item-id.js';
import type { DatasetRef, StoredItem } from '../dataset-store.js';
import { STAGE } from './postgres-merge.js';
import { insertKey, rowKey, rowsWithKeys } from './postgres-rows.js';

/**
 * The pages of a full read once its ids stopped ascending: a page may now repeat an id of an earlier
 * page, so it is upserted (the later page wins) into where the read's rows are: the dataset's own
 * rows when it had none, or the temporary table a merge stages in (postgres-merge.ts). An id repeated
 * as written is the same item moved on; one repeated under another spelling (7, then "7") is two
 * items the server told apart, and the read is refused with both named (item-id.ts), as the file
 * store refuses it when it sorts.
 */
export type RepeatTarget = 'items' | 'stage';

/** Each target's upsert and the rows it may replace; `$k` is the keys' parameter, `$j` the page's. */
const TARGETS: Record<RepeatTarget, { insert: string; prior: string; params: (ref: DatasetRef) => string[] }> = {
  items: {
    insert: `INSERT INTO ledgerhook_items (user_id, dataset, item_id, item, updated_at)
             SELECT $1, $2, k.id, e.value, now() FROM ${rowsWithKeys(3, 4)}
             ON CONFLICT (user_id, dataset, item_id) DO UPDATE SET item = excluded.item, updated_at = excluded.updated_at`,
    prior: 'SELECT item FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 AND item_id = ANY($3::text[])',
    params: (ref) => [ref.userId, ref.dataset],
  },
  stage: {
    insert: `INSERT INTO ${STAGE} (item_id, item) SELECT k.id, e.value FROM ${rowsWithKeys(1, 2)}
             ON CONFLICT (item_id) DO UPDATE SET item = excluded.item`,
    prior: `SELECT item FROM ${STAGE} WHERE item_id = ANY($1::text[])`,
    params: () => [],
  },
};

/**
 * Upserts one page (each id once: the caller dedupes) given as its JSON array text; returns how many
 * rows it added. The rows it replaces are read in the same statement, before it (one snapshot), so
 * that their ids can be compared with the page's.
 */
export async function upsertRepeating(
  client: pg.ClientBase,
  ref: DatasetRef,
  target: RepeatTarget,
  page: readonly StoredItem[],
  json: string,
): Promise<number> {
  const { insert, prior, params } = TARGETS[target];
  const keys = page.map((item) => insertKey(item.id));
  const result = await client.query<{ fresh: number; prior: Array<{ id: ItemId }> | null }>(
    `WITH prior AS (${prior}), upserted AS (${insert} RETURNING (xmax = 0) AS fresh)
     SELECT (SELECT count(*) FILTER (WHERE fresh) FROM upserted)::int AS fresh,
            (SELECT json_agg(item) FROM prior) AS prior`,
    [...params(ref), keys, json],
  );
  const row = result.rows[0];
  if (row?.prior) {
    const byKey = new Map(page.map((item, index) => [keys[index], item.id]));
    for (const earlier of row.prior) {
      const later = byKey.get(rowKey(earlier.id));
      // The same row: the same key, so any other spelling is another item.
      if (later !== undefined && !sameSpelling(earlier.id, later))
        throw collisionError(earlier.id, later, `the pages of the full read of ${ref.dataset}`);
    }
  }
  return row?.fresh ?? 0;
}
