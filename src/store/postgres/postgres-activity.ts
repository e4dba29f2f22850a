import type pg from 'pg';
import { activityFrom, type DatasetActivity } from '../dataset-activity.js';
import type { DatasetRef, StoredItem } from '../dataset-store.js';

/** Rows fetched per round trip while streaming a dataset: memory stays flat however big it is. */
const READ_BATCH = 5000;

/**
 * Every item of a dataset, in batches keyed by item_id (keyset paging: no OFFSET, no cursor held
 * across awaits the caller controls).
 */
export async function* readItemRows(
  withClient: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
  ref: Pick<DatasetRef, 'userId' | 'dataset'>,
): AsyncGenerator<StoredItem> {
  let after: string | null = null;
  for (;;) {
    const rows: Array<{ item_id: string; item: StoredItem }> = await withClient(async (client) => {
      const result = await client.query<{ item_id: string; item: StoredItem }>(
        `SELECT item_id, item FROM ledgerhook_items
         WHERE user_id = $1 AND dataset = $2 AND ($3::text IS NULL OR item_id COLLATE "C" > $3)
         ORDER BY item_id COLLATE "C" LIMIT ${READ_BATCH}`,
        [ref.userId, ref.dataset, after],
      );
      return result.rows;
    });
    for (const row of rows) yield row.item;
    const last = rows.at(-1);
    if (!last || rows.length < READ_BATCH) return;
    after = last.item_id;
  }
}

/** Reads and rewrites a dataset's activity under a row lock, so two writers never lose each other's counts. */
export async function updateActivityRow(
  client: pg.ClientBase,
  ref: Pick<DatasetRef, 'userId' | 'dataset'>,
  change: (previous: DatasetActivity | undefined) => DatasetActivity,
): Promise<void> {
  const found = await client.query<{ activity: unknown }>(
    'SELECT activity FROM ledgerhook_state WHERE user_id = $1 AND dataset = $2 FOR UPDATE',
    [ref.userId, ref.dataset],
  );
  const row = found.rows[0];
  if (!row) return;
  await client.query('UPDATE ledgerhook_state SET activity = $3::jsonb WHERE user_id = $1 AND dataset = $2', [
    ref.userId,
    ref.dataset,
    JSON.stringify(change(activityFrom(row.activity))),
  ]);
}
