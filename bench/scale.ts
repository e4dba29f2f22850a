/**
 * Cost as the work grows (`npm run bench scale`): at 10k, 100k and 1M expenses from
 * `ledgerhook mock` (a process, limit 1000), for the JSON file store and Postgres (127.0.0.1:5432,
 * db `test`, a schema of its own, dropped after):
 *  - a full sync by a `ledgerhook sync --full` process: wall time and peak RSS;
 *  - an incremental run (library, in process, so process start-up does not hide the growth) after
 *    1 change, and after none;
 *  - the file store after 10 changes against the floor: reading the data file's bytes and writing
 *    them once (temp file, fsync, rename), and the RSS it grows by while merging (flat = memory flat).
 * Every row is min / median / max of interleaved repetitions; the ratio between sizes shows what is
 * linear (x10) and what is flat (x1). Needs Postgres at LEDGERHOOK_TEST_DATABASE_URL.
 * LEDGERHOOK_BENCH_SCALE_SIZES=10000,100000 runs fewer sizes; the 1M full sync runs once (minutes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { FileStore } from '../src/store/file/file-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { syncDataset } from '../src/sync/sync-dataset.js';
import { datasetKey } from '../src/store/identity.js';
import { createTestSchema } from '../test/scale/helpers/services.js';
import { syncProcess } from './lib/child-sync.js';
import { rewriteFloor } from './lib/file-floor.js';
import { fmt, loadNote, median, report, spread } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const SIZES = (process.env.LEDGERHOOK_BENCH_SCALE_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const RUNS = 3;

interface SizeFigures {
  size: number;
  fullFile: number[];
  fullFileRss: number[];
  fullPg: number[];
  fullPgRss: number[];
  oneFile: number[];
  onePg: number[];
  noneFile: number[];
  tenFile: number[];
  floor: number[];
  mergeRssMb: number[];
}

/** The floor of a file rewrite, timed (lib/file-floor.ts). */
function floorOf(file: string): number {
  const started = performance.now();
  rewriteFloor(file);
  const ms = performance.now() - started;
  rmSync(`${file}.floor-copy`);
  return ms;
}

/** Wall time of `run`, and how far the RSS rose above where it stood (sampled every 2 ms). */
async function timedWithRss(run: () => Promise<unknown>): Promise<{ ms: number; rssMb: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, rssMb: (peak - base) / 1024 / 1024 };
}

async function measureSize(size: number, dir: string, dispatcher: Agent): Promise<SizeFigures> {
  // A schema per size: each size has its own mock server, and a dataset belongs to one server.
  const schema = await createTestSchema();
  const pgUrl = schema.url;
  const migrating = new PostgresStore({ url: pgUrl });
  await migrating.migrate();
  await migrating.close();
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', String(size)],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  const { baseUrl, token } = JSON.parse(mock.value) as { baseUrl: string; token: string };
  const configDir = join(dir, `config-${size}`);
  const out = join(dir, `out-${size}`);
  const env = { LEDGERHOOK_CONFIG_DIR: configDir };
  const common = ['expenses', '--base-url', baseUrl, '--token', token, '--limit', '1000', '--full'];
  const figures: SizeFigures = {
    size,
    fullFile: [],
    fullFileRss: [],
    fullPg: [],
    fullPgRss: [],
    oneFile: [],
    onePg: [],
    noneFile: [],
    tenFile: [],
    floor: [],
    mergeRssMb: [],
  };
  const files = new FileStore({ outDir: out, stateFile: join(configDir, 'state.json') });
  const postgres = new PostgresStore({ url: pgUrl });
  const mutate = async (update: number) => {
    const response = await request(`${new URL(baseUrl).origin}/__mock/mutate`, {
      method: 'POST',
      body: JSON.stringify({ path: '/expenses', update }),
      dispatcher,
    });
    await response.body.text();
  };
  const incremental = async (store: FileStore | PostgresStore) => {
    const summary = await syncDataset({ baseUrl, token, path: '/expenses', read: { limit: 1000 }, store, dispatcher });
    if (summary.mode !== 'incremental') throw new Error(`expected an incremental run, got ${summary.mode}`);
  };
  const time = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  try {
    for (let run = 0; run < (size >= 1_000_000 ? 1 : RUNS); run += 1) {
      const onFile = syncProcess(dir, [...common, '--out', out], env);
      const onPg = syncProcess(dir, [...common, '--store', pgUrl], env);
      if (onFile.summary.total !== size || onPg.summary.total !== size) throw new Error('a full sync missed items');
      figures.fullFile.push(onFile.seconds);
      figures.fullFileRss.push(onFile.rssMb);
      figures.fullPg.push(onPg.seconds);
      figures.fullPgRss.push(onPg.rssMb);
    }
    const file = files.fileFor({ userId: '', dataset: datasetKey('/expenses', {}) });
    for (let run = 0; run < RUNS; run += 1) {
      await mutate(1);
      figures.oneFile.push(await time(() => incremental(files)));
      figures.onePg.push(await time(() => incremental(postgres)));
      figures.noneFile.push(await time(() => incremental(files)));
      figures.floor.push(floorOf(file));
      await mutate(10);
      const merged = await timedWithRss(() => incremental(files));
      figures.tenFile.push(merged.ms);
      figures.mergeRssMb.push(merged.rssMb);
      await incremental(postgres); // keeps Postgres level with the server for the next round
    }
  } finally {
    await postgres.close();
    await schema.drop();
    await stopProcess(mock.child);
    rmSync(out, { recursive: true, force: true });
  }
  return figures;
}

/** "x9.7" between two sizes, and what it says: linear (close to the size ratio) or flat. */
function growth(small: number[], large: number[], sizeRatio: number): string {
  const ratio = median(large) / median(small);
  const verdict = ratio >= sizeRatio / 2 ? 'linear' : ratio <= 2 ? 'flat' : 'sub-linear';
  return `x${fmt(ratio, 1)} (${verdict})`;
}

export async function benchScale(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-scale-'));
  const dispatcher = new Agent();
  const load = [loadNote()];
  const all: SizeFigures[] = [];
  try {
    for (const size of SIZES) {
      all.push(await measureSize(size, dir, dispatcher));
      load.push(loadNote());
    }
  } finally {
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: Array<[string, string]> = [];
  for (const f of all) {
    const n = f.size.toLocaleString('en');
    rows.push(
      [`${n}: full sync, JSON file (process)`, `${spread(f.fullFile, 2)} s, peak RSS ${spread(f.fullFileRss, 0)} MB`],
      [`${n}: full sync, Postgres (process)`, `${spread(f.fullPg, 2)} s, peak RSS ${spread(f.fullPgRss, 0)} MB`],
      [`${n}: incremental, 1 change, JSON file`, `${spread(f.oneFile)} ms`],
      [`${n}: incremental, 1 change, Postgres`, `${spread(f.onePg)} ms`],
      [`${n}: incremental, no change, JSON file`, `${spread(f.noneFile)} ms`],
      [
        `${n}: incremental, 10 changes, JSON file vs floor`,
        `${spread(f.tenFile)} ms vs ${spread(f.floor)} ms: ${fmt(median(f.tenFile) / median(f.floor), 2)}x the floor (goal <= 2x), RSS +${spread(f.mergeRssMb, 0)} MB while merging`,
      ],
    );
  }
  for (let index = 1; index < all.length; index += 1) {
    const [a, b] = [all[index - 1] as SizeFigures, all[index] as SizeFigures];
    const x = b.size / a.size;
    rows.push([
      `${a.size.toLocaleString('en')} -> ${b.size.toLocaleString('en')} (x${fmt(x, 0)} items)`,
      [
        `full file ${growth(a.fullFile, b.fullFile, x)}`,
        `full Postgres ${growth(a.fullPg, b.fullPg, x)}`,
        `RSS file ${growth(a.fullFileRss, b.fullFileRss, x)}`,
        `RSS Postgres ${growth(a.fullPgRss, b.fullPgRss, x)}`,
        `1 change file ${growth(a.oneFile, b.oneFile, x)}`,
        `1 change Postgres ${growth(a.onePg, b.onePg, x)}`,
        `no change file ${growth(a.noneFile, b.noneFile, x)}`,
        `RSS rise while merging ${fmt(median(a.mergeRssMb), 0)} -> ${fmt(median(b.mergeRssMb), 0)} MB`,
      ].join(', '),
    ]);
  }
  const hundred = all.find((f) => f.size === 100_000);
  if (hundred)
    rows.push([
      'GOAL file store, 10 changes in 100,000 vs the floor',
      `${fmt(median(hundred.tenFile) / median(hundred.floor), 2)}x (goal <= 2x); no change ${fmt(median(hundred.noneFile), 1)} ms (goal: flat across sizes, see the no-change ratios above)`,
    ]);
  rows.push(['machine', load.join(' -> ')]);
  report(
    `Cost as the work grows (min / median / max; full syncs ${RUNS} runs, 1 at 1,000,000; incremental ${RUNS} interleaved runs)`,
    rows,
  );
}
