import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import pg from 'pg';
import { BIN, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startMultiUserApi } from './helpers/multi-user-api.js';
import { createTestSchema, servicesSkip } from './helpers/services.js';

const skip = await servicesSkip();
// 12 runs (3 per lane: a full read killed, then a continued or incremental one, twice) by default;
// 200 only in the soak tier (LEDGERHOOK_SOAK=1).
const RUNS = process.env.LEDGERHOOK_SOAK === '1' ? 200 : 12;
/** Four datasets crash side by side (each its own lane of runs), so that the runs take a quarter of the time. */
const LANES = [
  { path: '/expenses', entity: 'expenses', fullPages: 16 },
  { path: '/invoices', entity: 'invoices', fullPages: 8 },
  { path: '/revenues', entity: 'revenues', fullPages: 8 },
  { path: '/bankTransfers', entity: 'bankTransfers', fullPages: 8 },
];

type Api = Awaited<ReturnType<typeof startMultiUserApi>>;

/**
 * The crash test: `sync --store postgres://` SIGKILLed at a random moment of its run
 * (once its k-th page is answered: mid-read, or while it commits). After every kill, Postgres holds
 * exactly the data of the run its state names, never rows of a run whose state did not commit,
 * and a final run converges.
 */
describe(`sync into Postgres, SIGKILLed at random moments over ${RUNS} runs`, { skip }, () => {
  it('never holds data of an uncommitted run, and the next run converges', { timeout: 120_000 }, async () => {
    const api = await startMultiUserApi({ backend: 'mock', users: 1, items: 300 });
    const schema = await createTestSchema();
    const db = new pg.Pool({ connectionString: schema.url, max: LANES.length });
    const userId = api.userIds[0]!;
    const token = api.tokens[userId]!;
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: schema.url };
    const argsFor = (entity: string) => ['sync', entity, '--base-url', api.baseUrl, '--token', token, '--limit', '20'];
    const pagesServed = new Map<string, number>();
    api.onRequest((_, path) => pagesServed.set(path, (pagesServed.get(path) ?? 0) + 1));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let killed = 0;
    let continued = 0;
    const lane = async ({ path, entity, fullPages }: (typeof LANES)[number]) => {
      for (let run = 0; run < RUNS / LANES.length; run += 1) {
        // A full read killed mid-way left a checkpoint: this run continues it. No edit in
        // between, so that its rows are still those of its first page's snapshot (a read continued
        // across an edit is as of its first page plus what the next incremental run brings).
        const kept = await db
          .query("SELECT 1 FROM ledgerhook_checkpoint WHERE user_id = '' AND dataset = $1", [path])
          .then(
            (result) => (result.rowCount ?? 0) > 0,
            () => false,
          );
        if (kept) continued += 1;
        // 45 changes: an incremental run reads 3 pages of 20.
        else if (run > 0) api.mutate(userId, path, { create: 10, update: 30, delete: 5 });
        const synced = await db
          .query("SELECT 1 FROM ledgerhook_state WHERE user_id = '' AND dataset = $1", [path])
          .then(
            (result) => (result.rowCount ?? 0) > 0,
            () => false,
          );
        const killAt = (pagesServed.get(path) ?? 0) + 1 + Math.floor(random() * (synced ? 3 : fullPages));
        const child = spawn(process.execPath, [BIN, ...argsFor(entity)], {
          env: { ...process.env, ...env },
          stdio: 'ignore',
        });
        const stop = api.onRequest((_, served) => {
          if (served === path && (pagesServed.get(path) ?? 0) >= killAt) child.kill('SIGKILL');
        });
        const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
          child.on('exit', (c, s) => resolve([c, s])),
        );
        stop();
        if (signal === 'SIGKILL') killed += 1;
        else assert.equal(code, 0, `${path} run ${run} exited ${code}`);
        await assertConsistent(db, api, userId, path);
      }
    };
    try {
      await Promise.all(LANES.map(lane));
      assert.ok(killed >= RUNS / 2, `${killed} of ${RUNS} runs were killed mid-way`);
      assert.ok(continued >= 1, 'some run continued a full read a killed one had kept');
      await Promise.all(
        LANES.map(async ({ path, entity }) => {
          // The killed runs are real processes; the final one is the same sync command in process.
          const final = await runInProcess(argsFor(entity), { env });
          assert.equal(final.code, 0, final.stderr);
          const rows = await db.query(
            "SELECT item FROM ledgerhook_items WHERE user_id = '' AND dataset = $1 ORDER BY item_id::bigint",
            [path],
          );
          assert.deepEqual(
            rows.rows.map((row) => row.item),
            api.truth(userId, path),
            `${path} converges`,
          );
        }),
      );
    } finally {
      await db.end();
      await schema.drop();
      await api.close();
    }
  });
});

/** Data and state read in one snapshot: the rows are exactly what the run named by the state fetched. */
async function assertConsistent(db: pg.Pool, api: Api, userId: string, path: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const tables = await client.query("SELECT to_regclass('ledgerhook_state') IS NOT NULL AS ready");
    if (!tables.rows[0]?.ready) return;
    const state = await client.query(
      "SELECT last_updated_date, items FROM ledgerhook_state WHERE user_id = '' AND dataset = $1",
      [path],
    );
    const rows = await client.query(
      "SELECT item FROM ledgerhook_items WHERE user_id = '' AND dataset = $1 ORDER BY item_id::bigint",
      [path],
    );
    const saved = state.rows[0];
    if (!saved) {
      assert.equal(rows.rows.length, 0, `${path}: no rows without a committed state`);
      return;
    }
    const expected = api.snapshot(userId, path, saved.last_updated_date);
    assert.ok(expected, `${path}: the state names a run the server served (${saved.last_updated_date})`);
    assert.deepEqual(
      rows.rows.map((row) => row.item),
      expected,
      `${path}: the rows are exactly those of the run the state names`,
    );
    assert.equal(Number(saved.items), expected.length);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}
