import type pg from 'pg';

/**
 * The store's tables, created on first use or by `store migrate`, in one migration recorded in
 * ledgerhook_migrations (a later schema change is a second one, run once, in order); concurrent
 * starters (several workers at once) are serialised by an advisory lock so none sees a half-made
 * schema.
 *
 * Items are json, not jsonb: json keeps the text it is given, so an item comes back exactly as it was
 * synced (a string holding \u0000 or a lone surrogate, which jsonb refuses; its keys in order), and
 * storing it costs Postgres a check of its syntax instead of a conversion. The key columns compare
 * bytewise (COLLATE "C"): every row written searches the primary key, a locale's comparison costs
 * more than a byte comparison, and the rows are read back in that order (readItemRows).
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ledgerhook_items (
     user_id text COLLATE "C" NOT NULL,
     dataset text COLLATE "C" NOT NULL,
     item_id text COLLATE "C" NOT NULL,
     item json NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, dataset, item_id)
   );
   -- Per dataset: where the last read stands, its webhook activity and last reconcile (never part of
   -- a data commit), and the items' fields and types (dataset-schema.ts), written with the state.
   CREATE TABLE IF NOT EXISTS ledgerhook_state (
     user_id text NOT NULL,
     dataset text NOT NULL,
     last_updated_date text NOT NULL,
     items bigint NOT NULL,
     synced_at timestamptz NOT NULL,
     base_url text NOT NULL DEFAULT '',
     mode text NOT NULL DEFAULT 'full',
     token_fingerprint text NOT NULL DEFAULT '',
     activity jsonb,
     schema json,
     PRIMARY KEY (user_id, dataset)
   );
   -- Every committed change with its provenance, and the items removed while tombstones are kept
   -- (postgres-history.ts), written in the same transaction as the change.
   CREATE TABLE IF NOT EXISTS ledgerhook_history (
     user_id text COLLATE "C" NOT NULL,
     dataset text COLLATE "C" NOT NULL,
     item_id text COLLATE "C" NOT NULL,
     seq bigserial,
     at timestamptz NOT NULL,
     run text NOT NULL,
     cause text NOT NULL,
     delivery_id text,
     page text,
     op text NOT NULL,
     reason text,
     item json,
     PRIMARY KEY (user_id, dataset, item_id, seq)
   );
   CREATE INDEX IF NOT EXISTS ledgerhook_history_at ON ledgerhook_history (user_id, dataset, at);
   CREATE TABLE IF NOT EXISTS ledgerhook_tombstones (
     user_id text COLLATE "C" NOT NULL,
     dataset text COLLATE "C" NOT NULL,
     item_id text COLLATE "C" NOT NULL,
     item json NOT NULL,
     deleted_at timestamptz NOT NULL,
     reason text NOT NULL,
     run text NOT NULL,
     cause text NOT NULL,
     delivery_id text,
     PRIMARY KEY (user_id, dataset, item_id)
   );
   -- A resumable read's pages are kept as the COPY rows of each page (or of the pages between two
   -- checkpoints), with the checkpoint, in one statement per checkpoint (postgres-page-keeper.ts);
   -- its rows go into the dataset in the read's own transaction, as an all-or-nothing read's do.
   -- Both tables are UNLOGGED: a server crash empties them, and the read then starts again from page 1.
   CREATE UNLOGGED TABLE IF NOT EXISTS ledgerhook_staged_pages (
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
   CREATE UNLOGGED TABLE IF NOT EXISTS ledgerhook_checkpoint (
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
