import type pg from 'pg';
import { HISTORY_MIGRATION } from './postgres-history.js';

/**
 * The store's tables, created on first use or by `store migrate`. Each migration runs
 * once, in order, recorded in ledgerhook_migrations; concurrent starters (several workers at once)
 * are serialised by an advisory lock so none sees a half-made schema.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ledgerhook_items (
     user_id text NOT NULL,
     dataset text NOT NULL,
     item_id text NOT NULL,
     item jsonb NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, dataset, item_id)
   );
   CREATE TABLE IF NOT EXISTS ledgerhook_state (
     user_id text NOT NULL,
     dataset text NOT NULL,
     last_updated_date text NOT NULL,
     items bigint NOT NULL,
     synced_at timestamptz NOT NULL,
     base_url text NOT NULL DEFAULT '',
     mode text NOT NULL DEFAULT 'full',
     token_fingerprint text NOT NULL DEFAULT '',
     PRIMARY KEY (user_id, dataset)
   );`,
  // Webhook activity and the last reconcile, beside the state (never part of a data commit).
  'ALTER TABLE ledgerhook_state ADD COLUMN IF NOT EXISTS activity jsonb',
  // Per-item history with provenance, and tombstones (postgres-history.ts).
  HISTORY_MIGRATION,
  // The items' fields and types (dataset-schema.ts), written with the state in its transaction.
  'ALTER TABLE ledgerhook_state ADD COLUMN IF NOT EXISTS schema jsonb',
  // The pages of an interrupted full read and where it stands, so that a rerun goes on
  // (postgres-resumable-load.ts). Nothing here is visible as a dataset until the read's commit.
  // Staged rows are UNLOGGED (no WAL: written once more at the commit anyway); a server crash empties
  // the table, which the checkpoint's row count then tells, and the read starts again from page 1.
  `CREATE UNLOGGED TABLE IF NOT EXISTS ledgerhook_staging (
     user_id text NOT NULL,
     dataset text NOT NULL,
     item_id text NOT NULL,
     item jsonb NOT NULL,
     PRIMARY KEY (user_id, dataset, item_id)
   );
   CREATE TABLE IF NOT EXISTS ledgerhook_checkpoint (
     user_id text NOT NULL,
     dataset text NOT NULL,
     checkpoint jsonb NOT NULL,
     staged_rows bigint NOT NULL,
     saved_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, dataset)
   );`,
  // Items as json, not jsonb: json keeps the text it is given, so an item comes back exactly as it
  // was synced (a string holding \u0000 or a lone surrogate, which jsonb refuses, its keys in order),
  // and storing it costs Postgres a check of its syntax instead of a conversion. The state's schema
  // (field names come from items) likewise. Row keys of string ids that start with a double quote
  // become their JSON text, as rowKey now writes them (postgres-rows.ts). The key columns compare
  // bytewise (COLLATE "C"): every row written searches the primary key, and a locale's comparison
  // costs more than a byte comparison; the rows are read back in that order (readItemRows).
  ...['ledgerhook_items', 'ledgerhook_history', 'ledgerhook_tombstones'].map(
    (table) =>
      `ALTER TABLE ${table} ALTER COLUMN item TYPE json USING item::json,
         ALTER COLUMN user_id TYPE text COLLATE "C", ALTER COLUMN dataset TYPE text COLLATE "C",
         ALTER COLUMN item_id TYPE text COLLATE "C";
       UPDATE ${table} SET item_id = to_json(item_id)::text WHERE item_id LIKE '"%';`,
  ),
  'ALTER TABLE ledgerhook_state ALTER COLUMN schema TYPE json USING schema::json',
  // A resumable read's pages are kept as the COPY rows of each page (or of the pages between two
  // checkpoints), with the checkpoint, in one statement per checkpoint (postgres-page-keeper.ts);
  // its rows go into the dataset in the read's own transaction, as an all-or-nothing read's do.
  // Both tables are UNLOGGED: a server crash empties them, and the read then starts again from page
  // 1. A read interrupted under the earlier layout is read again from page 1.
  `DROP TABLE IF EXISTS ledgerhook_staging;
   DROP TABLE IF EXISTS ledgerhook_checkpoint;
   CREATE UNLOGGED TABLE ledgerhook_staged_pages (
     user_id text COLLATE "C" NOT NULL,
     dataset text COLLATE "C" NOT NULL,
     first_page integer NOT NULL,
     pages integer NOT NULL,
     items integer NOT NULL,
     body text NOT NULL,
     PRIMARY KEY (user_id, dataset, first_page)
   );
   -- Kept pages are compressed with lz4 where the server has it (cheaper than writing them whole),
   -- else stored uncompressed: pglz would cost more than it saves.
   DO $$ BEGIN
     EXECUTE 'ALTER TABLE ledgerhook_staged_pages ALTER COLUMN body SET COMPRESSION lz4';
   EXCEPTION WHEN OTHERS THEN
     ALTER TABLE ledgerhook_staged_pages ALTER COLUMN body SET STORAGE EXTERNAL;
   END $$;
   CREATE UNLOGGED TABLE ledgerhook_checkpoint (
     user_id text COLLATE "C" NOT NULL,
     dataset text COLLATE "C" NOT NULL,
     checkpoint json NOT NULL,
     staged_pages integer NOT NULL,
     staged_items bigint NOT NULL,
     saved_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, dataset)
   );`,
];

/** Any 64-bit number unlikely to collide with an application's own advisory locks. */
const MIGRATION_LOCK = 0x6c656467_6572;

export interface MigrationResult {
  applied: number[];
  version: number;
}

export async function migrate(client: pg.ClientBase): Promise<MigrationResult> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS ledgerhook_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = await client.query<{ version: number }>('SELECT version FROM ledgerhook_migrations');
    const have = new Set(done.rows.map((row) => row.version));
    const applied: number[] = [];
    for (const [index, sql] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (have.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO ledgerhook_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
    await client.query('COMMIT');
    return { applied, version: MIGRATIONS.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
