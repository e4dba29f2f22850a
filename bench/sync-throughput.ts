/**
 * A full sync of 100,000 expenses from `ledgerhook mock` at limit 1000 (library, in
 * process) against a bare undici loop that fetches and parses the same pages and throws them
 * away, in the same run (goal: >= 0.9x its throughput); and the peak RSS of a `ledgerhook
 * sync` process doing a full sync of 1,000,000 expenses (goal: < 150 MB). Also, interleaved: the
 * same sync all or nothing (resume: false, no checkpoint per page), which shows what the default
 * resumable read's checkpoints cost.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { FileStore, syncDataset } from '../src/index.js';
import { fmt, loadNote, median, report, spread } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

/** Rounds of the 100k comparison (each of the three starts two): runs of under a second vary by 10-20% here. */
const ROUNDS = 6;

async function bareLoop(baseUrl: string, token: string, dispatcher: Agent): Promise<number> {
  let cursor: string | undefined;
  let items = 0;
  do {
    const response = await request(`${baseUrl}/expenses`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        limit: '1000',
        ...(cursor ? { cursor } : {}),
      },
      dispatcher,
    });
    const page = (await response.body.json()) as { data: unknown[]; cursor?: string };
    items += page.data.length;
    cursor = page.cursor;
  } while (cursor);
  return items;
}

async function startMock(items: number) {
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', String(items)],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  return { ...mock, ...(JSON.parse(mock.value) as { baseUrl: string; token: string }) };
}

export async function benchSyncThroughput(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const mock = await startMock(100_000);
  const dispatcher = new Agent();
  const rounds: Array<{ bare: number; sync: number; once: number }> = [];
  const load = [loadNote()];
  const syncInto = async (name: string, resume: false | undefined) => {
    const started = performance.now();
    const summary = await syncDataset({
      baseUrl: mock.baseUrl,
      token: mock.token,
      path: '/expenses',
      limit: 1000,
      ...(resume === false ? { resume } : {}),
      store: new FileStore({ outDir: join(dir, name), stateFile: join(dir, `${name}.state.json`) }),
      dispatcher,
    });
    return summary.total / ((performance.now() - started) / 1000);
  };
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each round starts with a different one of the three: none is always first (a warmer mock, a
    // cooler disk cache) or always last.
    const runs: Array<() => Promise<void>> = [];
    const r = { bare: 0, sync: 0, once: 0 };
    runs.push(async () => {
      const started = performance.now();
      r.bare = (await bareLoop(mock.baseUrl, mock.token, dispatcher)) / ((performance.now() - started) / 1000);
    });
    runs.push(async () => {
      r.sync = await syncInto(`round-${round}`, undefined);
    });
    runs.push(async () => {
      r.once = await syncInto(`once-${round}`, false);
    });
    for (let step = 0; step < runs.length; step += 1) await runs[(round + step) % runs.length]?.();
    rounds.push(r);
  }
  load.push(loadNote());
  await stopProcess(mock.child);
  await dispatcher.close();
  const bare = median(rounds.map((r) => r.bare));
  const sync = median(rounds.map((r) => r.sync));
  const once = median(rounds.map((r) => r.once));

  // Peak RSS of a real sync process, reported by the process itself as it exits.
  const big = await startMock(1_000_000);
  const hook = join(dir, 'report-rss.cjs');
  writeFileSync(
    hook,
    "process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'));",
  );
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [
      '--require',
      hook,
      BIN,
      'sync',
      'expenses',
      '--base-url',
      big.baseUrl,
      '--token',
      big.token,
      '--limit',
      '1000',
      '--out',
      join(dir, 'million'),
      '--json',
    ],
    {
      env: { ...process.env, LEDGERHOOK_CONFIG_DIR: dir },
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  await stopProcess(big.child);
  if (child.status !== 0) throw new Error(`sync of 1,000,000 failed: ${child.stderr}`);
  const rssMb = Number(/maxrss (\d+)/.exec(child.stderr)?.[1]) / 1024;
  const total = JSON.parse(child.stdout).total as number;
  report(
    `Full sync from the mock at limit 1000 (${ROUNDS} interleaved rounds, each starting with a different one; min / median / max; goal: sync >= 0.9x the bare loop; the mock runs on the same 2 cores)`,
    [
      [
        'bare undici loop: fetch + parse, 100,000 expenses',
        `${spread(
          rounds.map((r) => r.bare),
          0,
        )} items/s`,
      ],
      [
        'syncDataset to a local JSON file, 100,000 expenses (resumable, the default)',
        `${spread(
          rounds.map((r) => r.sync),
          0,
        )} items/s  ${fmt(sync / bare, 2)}x (goal >= 0.9x)`,
      ],
      [
        'syncDataset to a local JSON file, 100,000 expenses, all or nothing (resume: false)',
        `${spread(
          rounds.map((r) => r.once),
          0,
        )} items/s  ${fmt(once / bare, 2)}x`,
      ],
      ['machine', load.join(' -> ')],
      [
        'ledgerhook sync, 1,000,000 expenses (process)',
        `${total} items in ${fmt(seconds, 1)} s, peak RSS ${fmt(rssMb, 0)} MB (goal: < 150 MB)`,
      ],
    ],
  );
}
