/**
 * `ledgerhook sync`'s rows of the performance table (docs/performance.md, "Sync throughput"): a full
 * read of 100,000 expenses from `ledgerhook mock` at limit 1000 against a bare undici loop that
 * fetches and parses the same pages and keeps nothing (bench/lib/bare-fetch-loop.mjs), in process
 * (syncDataset into the JSON file store, one dispatcher; goal >= 0.95x) and as processes
 * (`ledgerhook sync` against `node bare-fetch-loop.mjs`; goal >= 0.9x); beside them, in process, the
 * same read all or nothing (resume: false), which shows what the checkpoints cost. Then the peak RSS
 * of a `ledgerhook sync` process reading 1,000,000 expenses (goal < 150 MB). Rounds are interleaved,
 * each starting with another variant; each row prints the per-round ratio and the machine's load, and
 * beside it the CPU time each read took (this process's or the child's, threads included): on a
 * machine other work shares, steadier than a rate, since it does not count waiting for a core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { FileStore, syncDataset } from '../src/index.js';
import { measuredProcess, syncProcess } from './lib/child-sync.js';
// @ts-expect-error a plain .mjs floor (no types), run as a child process too
import { bareFetchLoop } from './lib/bare-fetch-loop.mjs';
import { fmt, median } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';
import { interleaved, loadNote, reportRatio } from './lib/ratio.js';

const BARE = fileURLToPath(new URL('./lib/bare-fetch-loop.mjs', import.meta.url));
const ITEMS = 100_000;
/** In process: runs of half a second vary by 10-20% on a shared machine. */
const ROUNDS = 8;
const PROCESS_ROUNDS = 6;

async function startMock(items: number) {
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', String(items)],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  return { ...mock, ...(JSON.parse(mock.value) as { baseUrl: string; token: string }) };
}

/** One line under a ratio row: the CPU time of each read, medians, and the per-round ratio's. */
function reportCpu(floor: number[], measure: number[]): void {
  const ratios = measure.map((value, round) => value / (floor[round] ?? Number.NaN));
  console.log(
    `  CPU time per read, medians: ${fmt(median(floor), 0)} ms against ${fmt(median(measure), 0)} ms, ${fmt(median(ratios), 2)}x`,
  );
}

export async function benchSyncThroughput(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const mock = await startMock(ITEMS);
  const common = ['--base-url', mock.baseUrl, '--token', mock.token, '--limit', '1000'];
  try {
    const dispatcher = new Agent();
    const inProcessCpu: Record<'bare' | 'sync' | 'once', number[]> = { bare: [], sync: [], once: [] };
    const inProcess = await interleaved(
      ['bare', 'sync', 'once'] as const,
      ROUNDS,
      async (variant, round) => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const cpuMs = () => {
          const used = process.cpuUsage(cpu);
          return (used.user + used.system) / 1000;
        };
        if (variant === 'bare') {
          const items: number = await bareFetchLoop(mock.baseUrl, mock.token, dispatcher);
          const rate = items / ((performance.now() - started) / 1000);
          inProcessCpu.bare.push(cpuMs());
          return rate;
        }
        const name = `${variant}-${round}`;
        const summary = await syncDataset({
          baseUrl: mock.baseUrl,
          token: mock.token,
          path: '/expenses',
          read: { limit: 1000, ...(variant === 'once' ? { resume: false as const } : {}) },
          store: new FileStore({ outDir: join(dir, name), stateFile: join(dir, `${name}.state.json`) }),
          dispatcher,
        });
        const rate = summary.total / ((performance.now() - started) / 1000);
        inProcessCpu[variant].push(cpuMs());
        rmSync(join(dir, name), { recursive: true, force: true });
        return rate;
      },
      true,
    );
    await dispatcher.close();
    const bare = { label: 'bare undici loop: fetch + parse', samples: inProcess.bare };
    reportRatio(
      `In process: a full read of ${ITEMS.toLocaleString('en')} expenses from the mock (limit 1000), syncDataset into a local JSON file against the bare loop`,
      bare,
      { label: 'syncDataset, resumable (the default)', samples: inProcess.sync },
      { better: 'higher', ratio: 0.95 },
      'items/s',
    );
    reportCpu(inProcessCpu.bare, inProcessCpu.sync);
    reportRatio(
      'In process: the same, all or nothing (resume: false): what the per-page checkpoints cost',
      bare,
      { label: 'syncDataset, all or nothing', samples: inProcess.once },
      undefined,
      'items/s',
    );
    reportCpu(inProcessCpu.bare, inProcessCpu.once);

    const processCpu: Record<'bare' | 'sync', number[]> = { bare: [], sync: [] };
    const processes = await interleaved(
      ['bare', 'sync'] as const,
      PROCESS_ROUNDS,
      (variant, round) => {
        if (variant === 'sync') {
          const out = join(dir, `process-${round}`);
          const run = syncProcess(dir, ['expenses', ...common, '--out', out], {
            LEDGERHOOK_CONFIG_DIR: join(dir, `config-${round}`),
          });
          rmSync(out, { recursive: true, force: true });
          processCpu.sync.push(run.cpuMs);
          return run.summary.total / run.seconds;
        }
        const run = measuredProcess(dir, [BARE, mock.baseUrl, mock.token], {});
        processCpu.bare.push(run.cpuMs);
        return (JSON.parse(run.stdout) as { total: number }).total / run.seconds;
      },
      true,
    );
    reportRatio(
      `As processes: \`ledgerhook sync expenses\` (${ITEMS.toLocaleString('en')} expenses, a first sync) against \`node bench/lib/bare-fetch-loop.mjs\``,
      { label: 'bare undici loop, a node process', samples: processes.bare },
      { label: 'ledgerhook sync, a process', samples: processes.sync },
      { better: 'higher', ratio: 0.9 },
      'items/s',
    );
    reportCpu(processCpu.bare, processCpu.sync);
  } finally {
    await stopProcess(mock.child);
  }

  // Peak RSS of a real sync process, reported by the process itself as it exits.
  const big = await startMock(1_000_000);
  try {
    const million = join(dir, 'million');
    const run = syncProcess(
      dir,
      ['expenses', '--base-url', big.baseUrl, '--token', big.token, '--limit', '1000', '--out', million],
      { LEDGERHOOK_CONFIG_DIR: dir },
    );
    console.log(`\nledgerhook sync of 1,000,000 expenses, a process  [${loadNote()}]`);
    console.log(
      `  ${run.summary.total} items in ${fmt(run.seconds, 1)} s (CPU ${fmt(run.cpuMs / 1000, 1)} s), peak RSS ${fmt(run.rssMb, 0)} MB  goal < 150 MB  ${run.rssMb < 150 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await stopProcess(big.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
