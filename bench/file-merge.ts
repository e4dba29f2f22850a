/**
 * The file store's merge alone (`npm run bench file-merge`): FileStore.applyChanges of 10
 * changes (with a history origin, as a sync run has) into a dataset of 100,000 and 1,000,000
 * expenses shaped like the mock's, against the floor: the data file's bytes read and written once
 * (temp file, fsync, rename). In process, no server: what `bench scale`'s "10 changes" row measures
 * without the HTTP round trip and the Postgres runs beside it, whose disk writes make its three
 * rounds swing. Interleaved rounds (merge, floor, merge, ...), wall and CPU time (this process's,
 * thread pool included), min / median / max, the machine's load noted.
 * LEDGERHOOK_BENCH_MERGE_SIZES=100000 runs fewer sizes; LEDGERHOOK_BENCH_MERGE_ROUNDS (default 9).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expenseFields } from '../src/mock/entity-generators.js';
import type { DatasetRef, DatasetState } from '../src/store/dataset-store.js';
import { FileStore } from '../src/store/file/file-store.js';
import { datasetKey } from '../src/store/identity.js';
import { rewriteFloor } from './lib/file-floor.js';
import { fmt, loadNote, median, report, spread } from './lib/measure.js';

const SIZES = (process.env.LEDGERHOOK_BENCH_MERGE_SIZES ?? '100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env.LEDGERHOOK_BENCH_MERGE_ROUNDS ?? 9);

interface Sample {
  ms: number;
  cpuMs: number;
}

async function timed(run: () => unknown): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function measureSize(size: number, dir: string): Promise<{ merge: Sample[]; floor: Sample[]; mb: number }> {
  let seed = 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const context = { seed: 1, now: Date.parse('2026-01-01T00:00:00Z') };
  // Ids 3, 6, 9...: a change lands on an item (replaced) or between two (inserted).
  const item = (id: number) => ({ id, ...expenseFields(random, context) });
  const store = new FileStore({ outDir: join(dir, `out-${size}`), stateFile: join(dir, 'state.json') });
  const ref: DatasetRef = {
    userId: '',
    dataset: datasetKey('/expenses', {}),
    path: '/expenses',
    filter: {},
    baseUrl: 'http://127.0.0.1:1',
    tokenFingerprint: 'bench',
  };
  const state = (mode: DatasetState['mode']): DatasetState => ({
    lastUpdatedDate: '2026-01-01 00:00:00.000',
    items: 0,
    syncedAt: new Date().toISOString(),
    mode,
    tokenFingerprint: 'bench',
  });
  const load = await store.beginFull(ref);
  for (let start = 1; start <= size; start += 1000) {
    const page = [];
    for (let index = start; index < start + 1000 && index <= size; index += 1) page.push(item(index * 3));
    await load.add(page);
  }
  await load.commit(state('full'));
  const file = store.fileFor(ref);
  let run = 0;
  const merge = () => {
    run += 1;
    const upserts = Array.from({ length: 10 }, (_, k) => item(Math.floor(random() * size) * 3 + (k % 2)));
    const origin = { run: `bench-${run}`, at: new Date().toISOString(), cause: 'sync' as const };
    return store.applyChanges(ref, { upserts, deletedIds: [], origin }, state('incremental'));
  };
  await merge(); // warm: the first merge after a full read
  const figures = { merge: [] as Sample[], floor: [] as Sample[], mb: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    figures.merge.push(await timed(merge));
    figures.floor.push(await timed(() => rewriteFloor(file)));
    rmSync(`${file}.floor-copy`);
  }
  figures.mb = readFileSync(file).length / 1024 / 1024;
  return figures;
}

export async function benchFileMerge(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-merge-'));
  const load = [loadNote()];
  const rows: Array<[string, string]> = [];
  try {
    for (const size of SIZES) {
      const { merge, floor, mb } = await measureSize(size, dir);
      load.push(loadNote());
      const n = size.toLocaleString('en');
      const wall = (list: Sample[]) => list.map((sample) => sample.ms);
      const cpu = (list: Sample[]) => list.map((sample) => sample.cpuMs);
      const ratios = merge.map((sample, index) => sample.ms / (floor[index]?.ms ?? Number.NaN));
      rows.push(
        [`${n} (${fmt(mb, 0)} MB): 10 changes merged, wall`, `${spread(wall(merge))} ms`],
        [`${n}: floor (read + write + fsync + rename), wall`, `${spread(wall(floor))} ms`],
        [
          `${n}: merge / floor`,
          `${fmt(median(wall(merge)) / median(wall(floor)), 2)}x of medians (per round ${spread(ratios, 2)}; goal <= 2x)`,
        ],
        [
          `${n}: CPU time, merge vs floor`,
          `${spread(cpu(merge))} ms vs ${spread(cpu(floor))} ms: ${fmt(median(cpu(merge)) / median(cpu(floor)), 2)}x`,
        ],
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  rows.push(['machine', load.join(' -> ')]);
  report(
    `File store merge, 10 changes, in process against the floor (min / median / max of ${ROUNDS} interleaved rounds; other processes on the machine share its 2 cores and disk)`,
    rows,
  );
}
