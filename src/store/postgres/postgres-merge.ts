import type pg from 'pg';
import type { DatasetRef } from '../dataset-store.js';

/**
 * A full read over a dataset that already has rows, merged rather than deleted and re-inserted.
 *
 * Deleting 100,000 rows and inserting the same keys again is the slowest way to replace them: every
 * insert then checks its key against the dead row still in the index. A full read mostly brings rows
 * that did not change, so the pages are copied into a temporary table as they arrive (no WAL, no
 * index) and merged once at the end in three set operations: changed rows updated, new rows
 * inserted, rows no page brought deleted; unchanged rows are not written at all. It all runs in the
 * caller's transaction: readers see the old dataset until COMMIT. Memory holds a page; the staged
 * rows are on disk.
 */

export const STAGE = 'ledgerhook_stage';

/** The COPY that stages pages (rows as `pageText` writes them, without a prefix). */
export const STAGE_COPY = `COPY ${STAGE} (item_id, item) FROM STDIN`;

export async function beginMerge(client: pg.ClientBase): Promise<void> {
  await client.query(
    `CREATE TEMPORARY TABLE ${STAGE} (item_id text COLLATE "C" NOT NULL, item json NOT NULL) ON COMMIT DROP`,
  );
}

/**
 * Once ids stop ascending a page may repeat an earlier id: from then on pages are upserted into
 * the staged rows (the later page wins), which needs a unique index. No id repeated before, so
 * the index can be built over what is staged.
 */
export async function allowRepeats(client: pg.ClientBase): Promise<void> {
  await client.query(`CREATE UNIQUE INDEX ON ${STAGE} (item_id)`);
}

/** MERGE (Postgres 15+) updates and inserts in one join; older servers take two statements. */
export type MergeStatement = 'merge' | 'update-insert';

/** Merges the staged rows into the dataset; returns its row count. */
export async function finishMerge(client: pg.ClientBase, ref: DatasetRef, statement?: MergeStatement): Promise<number> {
  const params = [ref.userId, ref.dataset];
  const use = statement ?? (await serverStatement(client));
  // Each statement must be one pass over both sides (a hash join). The staged table has no
  // statistics and the dataset's may be stale; a nested loop chosen on a wrong estimate would read
  // one side once per row of the other.
  await client.query('SET LOCAL enable_nestloop = off');
  if (use === 'merge') {
    await client.query(
      `MERGE INTO ledgerhook_items AS i USING ${STAGE} AS s
       ON i.user_id = $1 AND i.dataset = $2 AND i.item_id = s.item_id
       WHEN MATCHED AND i.item::text IS DISTINCT FROM s.item::text THEN UPDATE SET item = s.item, updated_at = now()
       WHEN NOT MATCHED THEN INSERT (user_id, dataset, item_id, item) VALUES ($1, $2, s.item_id, s.item)`,
      params,
    );
  } else {
    await client.query(
      `UPDATE ledgerhook_items AS i SET item = s.item, updated_at = now() FROM ${STAGE} AS s
       WHERE i.user_id = $1 AND i.dataset = $2 AND i.item_id = s.item_id AND i.item::text IS DISTINCT FROM s.item::text`,
      params,
    );
    await client.query(
      `INSERT INTO ledgerhook_items (user_id, dataset, item_id, item)
       SELECT $1, $2, s.item_id, s.item FROM ${STAGE} AS s
       WHERE NOT EXISTS (SELECT 1 FROM ledgerhook_items AS i WHERE i.user_id = $1 AND i.dataset = $2 AND i.item_id = s.item_id)`,
      params,
    );
  }
  await client.query(
    `DELETE FROM ledgerhook_items AS i WHERE i.user_id = $1 AND i.dataset = $2
     AND NOT EXISTS (SELECT 1 FROM ${STAGE} AS s WHERE s.item_id = i.item_id)`,
    params,
  );
  await client.query('SET LOCAL enable_nestloop = on');
  const staged = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM ${STAGE} AS s`);
  return Number(staged.rows[0]?.rows ?? 0);
}

async function serverStatement(client: pg.ClientBase): Promise<MergeStatement> {
  const version = await client.query<{ version: number }>(
    "SELECT current_setting('server_version_num')::int AS version",
  );
  return (version.rows[0]?.version ?? 0) >= 150_000 ? 'merge' : 'update-insert';
}
