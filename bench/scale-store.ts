/**
 * Issue #13 (a) and (b), Postgres against the JSON file store in the same run, from `ledgerhook
 * mock` (a process) at limit 1000:
 *  (a) a full sync of 100,000 expenses (goal: Postgres >= 0.7x the file's throughput, both all or
 *      nothing), into a dataset that has no rows yet (a new user each round: one COPY); then, as
 *      sync runs by default (issue 21), resumable: its pages kept for a later run (a staging file,
 *      ledgerhook_staging), into a new dataset and again over the same dataset (a re-sync: merged,
 *      unchanged rows not rewritten). A JSON file costs the same either way (it is rewritten whole).
 *  (b) an incremental run that changes 10 items of the 100,000 (goal: Postgres >= 10x faster:
 *      the file store rewrites the whole file, Postgres touches 10 rows).
 * Needs Postgres at LEDGERHOOK_TEST_DATABASE_URL (default postgres://127.0.0.1:5432/test).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { FileStore } from '../src/store/file/file-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { syncDataset } from '../src/sync/sync-dataset.js';
import { createTestSchema } from '../test/scale/helpers/services.js';
import { fmt, median, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const ITEMS = 100_000;

export async function benchScaleStore(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', String(ITEMS)],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  const { baseUrl, token } = JSON.parse(mock.value) as { baseUrl: string; token: string };
  const dispatcher = new Agent();
  const schema = await createTestSchema();
  const files = new FileStore({ outDir: join(dir, 'data'), stateFile: join(dir, 'state.json') });
  const postgres = new PostgresStore({ url: schema.url });
  await postgres.migrate();
  const sync = async (store: FileStore | PostgresStore, full: boolean, userId?: string, resume = true) => {
    const started = performance.now();
    const summary = await syncDataset({
      baseUrl,
      token,
      path: '/expenses',
      limit: 1000,
      store,
      dispatcher,
      full,
      userId,
      resume,
    });
    return { ms: performance.now() - started, summary };
  };
  try {
    const full = {
      files: [] as number[],
      postgres: [] as number[],
      resync: [] as number[],
      filesOnce: [] as number[],
      postgresOnce: [] as number[],
    };
    for (let round = 0; round < 3; round += 1) {
      full.files.push(ITEMS / ((await sync(files, true)).ms / 1000));
      full.postgres.push(ITEMS / ((await sync(postgres, true, `first-load-${round}`)).ms / 1000));
      // All or nothing (resume: false, sync --no-resume): no pages kept for a later run.
      full.filesOnce.push(ITEMS / ((await sync(files, true, undefined, false)).ms / 1000));
      full.postgresOnce.push(ITEMS / ((await sync(postgres, true, `first-once-${round}`, false)).ms / 1000));
    }
    await sync(postgres, true); // the dataset the re-syncs and the incremental runs go over
    for (let round = 0; round < 3; round += 1) full.resync.push(ITEMS / ((await sync(postgres, true)).ms / 1000));
    const incremental = { files: [] as number[], postgres: [] as number[] };
    for (let round = 0; round < 5; round += 1) {
      const origin = new URL(baseUrl).origin;
      const response = await request(`${origin}/__mock/mutate`, {
        method: 'POST',
        body: JSON.stringify({ path: '/expenses', update: 8, create: 1, delete: 1 }),
        dispatcher,
      });
      await response.body.text();
      const onFile = await sync(files, false);
      const onPostgres = await sync(postgres, false);
      if (onFile.summary.mode !== 'incremental' || onPostgres.summary.mode !== 'incremental')
        throw new Error('expected incremental runs');
      incremental.files.push(onFile.ms);
      incremental.postgres.push(onPostgres.ms);
    }
    const [fileRate, pgRate, resyncRate] = [median(full.files), median(full.postgres), median(full.resync)];
    const [fileOnce, pgOnce] = [median(full.filesOnce), median(full.postgresOnce)];
    const [fileMs, pgMs] = [median(incremental.files), median(incremental.postgres)];
    report(
      'Postgres store against the JSON file store (mock process, limit 1000; goals: full all-or-nothing >= 0.7x, incremental >= 10x). A full read keeps its pages for a later run by default (issue 21): what that costs shows here, against a mock with no network latency',
      [
        ['(a) full sync of 100,000 expenses, JSON file, all or nothing (median of 3)', `${fmt(fileOnce, 0)} items/s`],
        [
          '(a) full sync of 100,000 expenses, Postgres, new dataset, all or nothing (median of 3)',
          `${fmt(pgOnce, 0)} items/s  ${fmt(pgOnce / fileOnce, 2)}x`,
        ],
        [
          '(a) full sync of 100,000 expenses, JSON file, resumable (median of 3)',
          `${fmt(fileRate, 0)} items/s  ${fmt(fileRate / fileOnce, 2)}x of all or nothing`,
        ],
        [
          '(a) full sync of 100,000 expenses, Postgres, new dataset, resumable (median of 3)',
          `${fmt(pgRate, 0)} items/s  ${fmt(pgRate / fileRate, 2)}x, ${fmt(pgRate / pgOnce, 2)}x of all or nothing`,
        ],
        [
          '(a) full re-sync of the same 100,000, Postgres, resumable (median of 3)',
          `${fmt(resyncRate, 0)} items/s  ${fmt(resyncRate / fileRate, 2)}x`,
        ],
        ['(b) incremental run, 10 of 100,000 changed, JSON file (median of 5)', `${fmt(fileMs, 1)} ms`],
        [
          '(b) incremental run, 10 of 100,000 changed, Postgres (median of 5)',
          `${fmt(pgMs, 1)} ms  ${fmt(fileMs / pgMs, 1)}x faster`,
        ],
      ],
    );
  } finally {
    await postgres.close();
    await schema.drop();
    await dispatcher.close();
    await stopProcess(mock.child);
  }
}
