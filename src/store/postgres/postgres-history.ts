import type pg from 'pg';
import { idKey } from '../../dataset/item-id.js';
import {
  type ChangeOrigin,
  changeEntries,
  type HistoryEntry,
  historyEntryFrom,
  type RemovalReason,
} from '../dataset-history.js';
import type { DatasetRef, StoredItem } from '../dataset-store.js';
import { idOfRowKey, rowKey } from './postgres-rows.js';

/**
 * The history in Postgres: every committed change with its provenance (ledgerhook_history), and the
 * items removed while tombstones were kept (ledgerhook_tombstones), both written in the same
 * transaction as the change itself. Tombstones have a table of their own rather than a column of
 * ledgerhook_items, so that every reader of the dataset's rows stays as it is.
 */
type Ref = Pick<DatasetRef, 'userId' | 'dataset'>;

/** Deletes rows and returns what they held (the last content of each removed item). */
export async function deleteReturning(client: pg.ClientBase, ref: Ref, ids: readonly string[]): Promise<StoredItem[]> {
  if (ids.length === 0) return [];
  const result = await client.query<{ item: StoredItem }>(
    'DELETE FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 AND item_id = ANY($3::text[]) RETURNING item',
    [ref.userId, ref.dataset, ids],
  );
  return result.rows.map((row) => row.item);
}

/** An entry's facts as one json record; its item goes apart (ENTRIES). */
const toRow = (entry: HistoryEntry) => ({
  item_id: rowKey(entry.id),
  at: entry.at,
  run: entry.run,
  cause: entry.cause,
  delivery_id: entry.deliveryId ?? null,
  page: entry.page ?? null,
  op: entry.op,
  reason: entry.reason ?? null,
});

/**
 * Entries' facts ($3) joined by position with their items ($4, a json array, null where none): an
 * item is never a field of a record that Postgres converts, so it keeps its text (\u0000 included).
 */
const ENTRIES = `ROWS FROM (json_to_recordset($3::json) AS (item_id text, at timestamptz, run text, cause text,
    delivery_id text, page text, op text, reason text))
  WITH ORDINALITY AS e(item_id, at, run, cause, delivery_id, page, op, reason, n)
  JOIN json_array_elements($4::json) WITH ORDINALITY AS i(value, n) USING (n)`;
const ITEM = `CASE WHEN i.value::text = 'null' THEN NULL ELSE i.value END`;

const entryParams = (ref: Ref, entries: readonly HistoryEntry[]) => [
  ref.userId,
  ref.dataset,
  JSON.stringify(entries.map(toRow)),
  JSON.stringify(entries.map((entry) => entry.item ?? null)),
];

/**
 * The commit's history rows (older than `days` dropped first, except nothing of a current tombstone
 * is in this table to lose), its tombstones kept, and tombstones of ids that came back removed.
 */
export async function recordChanges(
  client: pg.ClientBase,
  ref: Ref,
  origin: ChangeOrigin,
  upserts: readonly StoredItem[],
  removed: readonly StoredItem[],
  options: {
    keepDeleted?: boolean | undefined;
    reasons?: ReadonlyMap<string, RemovalReason> | undefined;
    days: number;
  },
): Promise<void> {
  await client.query(
    `DELETE FROM ledgerhook_history WHERE user_id = $1 AND dataset = $2 AND at < $3::timestamptz - make_interval(days => $4)`,
    [ref.userId, ref.dataset, origin.at, options.days],
  );
  const entries = changeEntries(origin, upserts, removed, { ...options, key: idKey });
  for (let start = 0; start < entries.length; start += 2000)
    await client.query(
      `INSERT INTO ledgerhook_history (user_id, dataset, item_id, at, run, cause, delivery_id, page, op, reason, item)
       SELECT $1, $2, e.item_id, e.at, e.run, e.cause, e.delivery_id, e.page, e.op, e.reason, ${ITEM} FROM ${ENTRIES}`,
      entryParams(ref, entries.slice(start, start + 2000)),
    );
  if (upserts.length > 0)
    await client.query(
      'DELETE FROM ledgerhook_tombstones WHERE user_id = $1 AND dataset = $2 AND item_id = ANY($3::text[])',
      [ref.userId, ref.dataset, upserts.map((item) => rowKey(item.id))],
    );
  const kept = entries.filter((entry) => entry.op === 'delete' && entry.item !== undefined);
  if (kept.length > 0)
    await client.query(
      `INSERT INTO ledgerhook_tombstones (user_id, dataset, item_id, item, deleted_at, reason, run, cause, delivery_id)
       SELECT $1, $2, e.item_id, i.value, e.at, e.reason, e.run, e.cause, e.delivery_id FROM ${ENTRIES}
       ON CONFLICT (user_id, dataset, item_id) DO UPDATE
         SET item = excluded.item, deleted_at = excluded.deleted_at, reason = excluded.reason, run = excluded.run,
             cause = excluded.cause, delivery_id = excluded.delivery_id`,
      entryParams(ref, kept),
    );
}

const SELECT_HISTORY = `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, run, cause,
  delivery_id AS "deliveryId", page, op, reason, item, item_id FROM ledgerhook_history`;

function entryFromRow(row: Record<string, unknown>): HistoryEntry | undefined {
  const id = (row.item as { id?: unknown } | null)?.id ?? idOfRowKey(String(row.item_id));
  const clean = Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null));
  return historyEntryFrom({ ...clean, id });
}

export async function readHistoryRows(client: pg.ClientBase, ref: Ref, id?: StoredItem['id']): Promise<HistoryEntry[]> {
  const result = await client.query(
    id === undefined
      ? `${SELECT_HISTORY} WHERE user_id = $1 AND dataset = $2 ORDER BY at, seq`
      : `${SELECT_HISTORY} WHERE user_id = $1 AND dataset = $2 AND item_id = $3 ORDER BY at, seq`,
    id === undefined ? [ref.userId, ref.dataset] : [ref.userId, ref.dataset, rowKey(id)],
  );
  return result.rows.flatMap((row) => entryFromRow(row) ?? []);
}

export async function readTombstoneRows(client: pg.ClientBase, ref: Ref): Promise<HistoryEntry[]> {
  const result = await client.query(
    `SELECT to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, run, cause,
       delivery_id AS "deliveryId", 'delete' AS op, reason, item, item_id FROM ledgerhook_tombstones WHERE user_id = $1 AND dataset = $2 ORDER BY item_id`,
    [ref.userId, ref.dataset],
  );
  return result.rows.flatMap((row) => entryFromRow(row) ?? []);
}
