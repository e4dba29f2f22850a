/**
 * The Postgres store against the JSON file store, from `ledgerhook mock` (a process) at limit 1000,
 * every variant measured in the same rounds, each round starting with a different one:
 *  - a full sync of 100,000 expenses into a new dataset (a new user each time): the file store and
 *    Postgres all or nothing (`--no-resume`), and Postgres resumable (the default: a later run can
 *    continue it). Rows: Postgres resumable against Postgres all or nothing, and Postgres all or
 *    nothing against the file store (goals >= 0.85x each);
 *  - the same over the dataset it replaces (a re-sync: merged, unchanged rows not rewritten);
 *  - an incremental run that changes 10 items of the 100,000 (goal: Postgres >= 10x faster: the
 *    file store rewrites the whole file, Postgres touches 10 rows).
 * In the same rounds, the floor of the Postgres side: the same 100,000 rows COPYed into the store's
 * table under a user of their own, in one transaction on a connection of its own, its backend's CPU
 * against the store's backends' for the all-or-nothing load (no goal: what the store costs Postgres
 * beyond storing the rows).
 * Needs Postgres at LEDGERHOOK_TEST_DATABASE_URL (default postgres://127.0.0.1:5432/test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { CopyStream, copyField } from '../src/store/postgres/postgres-copy.js';
import { FileStore } from '../src/store/file/file-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { syncDataset } from '../src/sync/sync-dataset.js';
import { createTestSchema } from '../test/scale/helpers/services.js';
import { fmt, median, report } from './lib/measure.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';
import { loadNote, reportRatio } from './lib/ratio.js';

const ITEMS = 100_000;
const ROUNDS = Number(process.env.LEDGERHOOK_BENCH_ROUNDS ?? 5);

const VARIANTS = ['file', 'postgres', 'resumable', 'postgresResync', 'resumableResync'] as const;
type Variant = (typeof VARIANTS)[number];

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
  // The store's connections carry a name of their own, so that their backends' CPU can be told apart.
  const appName = `ledgerhook-bench-${process.pid}`;
  const url = new URL(schema.url);
  url.searchParams.set('application_name', appName);
  const postgres = new PostgresStore({ url: url.href });
  await postgres.migrate();
  /** CPU seconds of the store's Postgres backends so far, by pid (Linux; a backend that exited is not counted). */
  const backends = async () => {
    const pids = await schema.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      appName,
    ]);
    return new Map(pids.rows.map((row) => [row.pid, cpuSeconds(row.pid)]));
  };
  const sync = async (store: FileStore | PostgresStore, full: boolean, userId?: string, resume = true) => {
    const started = performance.now();
    const summary = await syncDataset({
      baseUrl,
      token,
      path: '/expenses',
      read: { limit: 1000, full, resume },
      store,
      dispatcher,
      userId,
    });
    if (full && summary.total !== ITEMS) throw new Error(`a full sync kept ${summary.total} items`);
    return { ms: performance.now() - started, summary };
  };
  /** CPU per variant (ms per 100,000 items): this process, the store's Postgres backends, the mock. */
  type CpuSamples = { node: number[]; postgres: number[]; mock: number[] };
  const cpu = Object.fromEntries(
    VARIANTS.map((variant): [Variant, CpuSamples] => [variant, { node: [], postgres: [], mock: [] }]),
  ) as Record<Variant, CpuSamples>;
  const rate = async (variant: Variant, run: () => Promise<{ ms: number }>) => {
    const before = { node: process.cpuUsage(), postgres: await backends(), mock: cpuSeconds(mock.child.pid) };
    const { ms } = await run();
    const node = process.cpuUsage(before.node);
    let postgresSeconds = 0;
    for (const [pid, seconds] of await backends()) postgresSeconds += seconds - (before.postgres.get(pid) ?? 0);
    const scale = 100_000 / ITEMS;
    cpu[variant].node.push(((node.user + node.system) / 1000) * scale);
    cpu[variant].postgres.push(postgresSeconds * 1000 * scale);
    cpu[variant].mock.push((cpuSeconds(mock.child.pid) - before.mock) * 1000 * scale);
    return ITEMS / (ms / 1000);
  };
  const load = [loadNote()];
  try {
    // The datasets the re-syncs go over, and one warm-up of each path.
    await sync(postgres, true, 'resync-once', false);
    await sync(postgres, true, 'resync-resumable');
    await sync(files, true, undefined, false);
    const floor = await copyFloor(
      schema.url,
      await schema.query(
        'SELECT item_id, item::text AS item FROM ledgerhook_items WHERE user_id = $1 ORDER BY item_id',
        ['resync-once'],
      ),
    );
    const floorSamples: number[] = [];
    const samples = Object.fromEntries(VARIANTS.map((variant) => [variant, [] as number[]])) as Record<
      Variant,
      number[]
    >;
    const measure: Record<Variant, (round: number) => Promise<number>> = {
      file: () => rate('file', () => sync(files, true, undefined, false)),
      postgres: (round) => rate('postgres', () => sync(postgres, true, `new-once-${round}`, false)),
      resumable: (round) => rate('resumable', () => sync(postgres, true, `new-resumable-${round}`)),
      postgresResync: () => rate('postgresResync', () => sync(postgres, true, 'resync-once', false)),
      resumableResync: () => rate('resumableResync', () => sync(postgres, true, 'resync-resumable')),
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let step = 0; step < VARIANTS.length; step += 1) {
        const variant = VARIANTS[(round + step) % VARIANTS.length] as Variant;
        samples[variant][round] = await measure[variant](round);
      }
      floorSamples.push(await floor.measure(round));
    }
    await floor.close();
    load.push(loadNote());
    const of = (variant: Variant, label: string) => ({ label, samples: samples[variant] });
    reportRatio(
      `Postgres full read of ${ITEMS.toLocaleString('en')} expenses, new dataset: resumable (the default) vs all or nothing (--no-resume)`,
      of('postgres', 'Postgres, all or nothing'),
      of('resumable', 'Postgres, resumable'),
      { better: 'higher', ratio: 0.85 },
      'items/s',
    );
    reportRatio(
      `Full read of ${ITEMS.toLocaleString('en')} expenses, new dataset, all or nothing: Postgres vs the JSON file store`,
      of('file', 'JSON file, all or nothing'),
      of('postgres', 'Postgres, all or nothing'),
      { better: 'higher', ratio: 0.85 },
      'items/s',
    );
    reportRatio(
      `Postgres full re-sync of the same ${ITEMS.toLocaleString('en')} (merged: unchanged rows not rewritten): resumable vs all or nothing`,
      of('postgresResync', 'Postgres re-sync, all or nothing'),
      of('resumableResync', 'Postgres re-sync, resumable'),
      { better: 'higher', ratio: 0.85 },
      'items/s',
    );
    reportRatio(
      `Full re-sync of ${ITEMS.toLocaleString('en')} expenses, all or nothing: Postgres (merged) vs the JSON file store (rewritten)`,
      of('file', 'JSON file, all or nothing'),
      of('postgresResync', 'Postgres re-sync, all or nothing'),
      undefined,
      'items/s',
    );

    // What each variant costs in CPU, wherever it runs: steadier than items/s on a shared machine, and
    // on 2 cores the sum is what bounds the throughput of the three processes together.
    const labels: Record<Variant, string> = {
      file: 'JSON file, all or nothing',
      postgres: 'Postgres, all or nothing',
      resumable: 'Postgres, resumable',
      postgresResync: 'Postgres re-sync, all or nothing',
      resumableResync: 'Postgres re-sync, resumable',
    };
    report(
      "CPU per 100,000 items (median ms: this process + the store's Postgres backends + the mock = total)",
      VARIANTS.map((variant) => {
        const [node, pg, served] = [cpu[variant].node, cpu[variant].postgres, cpu[variant].mock].map(median) as [
          number,
          number,
          number,
        ];
        return [
          labels[variant],
          `${fmt(node, 0)} + ${fmt(pg, 0)} + ${fmt(served, 0)} = ${fmt(node + pg + served, 0)} ms`,
        ];
      }),
    );

    reportRatio(
      `Postgres backends' CPU for ${ITEMS.toLocaleString('en')} new rows: the store's all-or-nothing load vs a bare COPY of the same rows into the same table (the floor)`,
      { label: 'bare COPY, one transaction', samples: floorSamples },
      { label: 'the store, all or nothing', samples: cpu.postgres.postgres },
      undefined,
      'ms',
    );

    const incremental = { files: [] as number[], postgres: [] as number[] };
    await sync(postgres, true); // the dataset the incremental runs go over
    await sync(files, true);
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
    const [fileMs, pgMs] = [median(incremental.files), median(incremental.postgres)];
    load.push(loadNote());
    report('Incremental run, 10 of 100,000 changed (median of 5; goal: Postgres >= 10x faster)', [
      ['JSON file', `${fmt(fileMs, 1)} ms`],
      ['Postgres', `${fmt(pgMs, 1)} ms  ${fmt(fileMs / pgMs, 1)}x faster`],
      ['machine', load.join(' -> ')],
    ]);
  } finally {
    await postgres.close();
    await schema.drop();
    await dispatcher.close();
    await stopProcess(mock.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The Postgres side's floor: `rows` (item_id, item as text) as COPY rows under a user of their own,
 * copied into ledgerhook_items itself (the table, indexes and size the store's loads meet) in one
 * transaction on a connection of its own; `measure(round)` returns its backend's CPU (ms).
 */
async function copyFloor(url: string, rows: pg.QueryResult<{ item_id: string; item: string }>) {
  const rowsOf = (user: string) => {
    const chunks: Buffer[] = [];
    for (let start = 0; start < rows.rows.length; start += 1000) {
      let text = '';
      for (const row of rows.rows.slice(start, start + 1000))
        text += `${user}\t/expenses\t${copyField(row.item_id)}\t${copyField(row.item)}\n`;
      chunks.push(Buffer.from(text, 'utf8'));
    }
    return chunks;
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
  return {
    async measure(round: number): Promise<number> {
      const chunks = rowsOf(`copy-floor-${round}`);
      const before = cpuSeconds(pid);
      await client.query('BEGIN');
      const copy = await CopyStream.open(client, 'COPY ledgerhook_items (user_id, dataset, item_id, item) FROM STDIN');
      for (const chunk of chunks) await copy.write(chunk);
      await copy.end();
      await client.query('COMMIT');
      return (cpuSeconds(pid) - before) * 1000;
    },
    close: () => client.end(),
  };
}
