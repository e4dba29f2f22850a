/**
 * Reconcile of 100,000 expenses (a full read from `ledgerhook mock`, compared by id and a
 * content hash with the synced file) against a hand-written compare loop doing the same work the
 * naive way (bench/lib/hand-reconcile.mjs: the file loaded whole, items compared as JSON text), in
 * the same run: time in process (median of 3 interleaved rounds) and peak RSS of each as a process.
 * The mock runs on the same 2 cores and takes CPU from both alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore, reconcileDataset, syncDataset } from '../src/index.js';
// @ts-expect-error a plain .mjs baseline (no types), run as a child process too
import { handReconcile } from './lib/hand-reconcile.mjs';
import { fmt, median, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const HAND = fileURLToPath(new URL('./lib/hand-reconcile.mjs', import.meta.url));

function peakRss(argv: string[], env: NodeJS.ProcessEnv, hook: string): { mb: number; stdout: string; ms: number } {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--require', hook, ...argv], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - started;
  const rss = /maxrss (\d+)/.exec(child.stderr)?.[1];
  if (rss === undefined) throw new Error(`${argv.join(' ')} failed: ${child.stderr}`);
  return { mb: Number(rss) / 1024, stdout: child.stdout, ms };
}

export async function benchReconcile(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-reconcile-'));
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', '100000'],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  const { baseUrl, token } = JSON.parse(mock.value) as { baseUrl: string; token: string };
  const stateFile = join(dir, 'state.json');
  const store = new FileStore({ outDir: join(dir, 'out'), stateFile });
  const options = { baseUrl, token, path: '/expenses', read: { limit: 1000 }, store };
  try {
    await syncDataset(options);
    const file = store.fileFor({ userId: '', dataset: '/expenses' });
    const times = { hand: [] as number[], reconcile: [] as number[] };
    for (let round = 0; round < 3; round += 1) {
      let started = performance.now();
      const hand = await handReconcile(baseUrl, token, file);
      times.hand.push(performance.now() - started);
      started = performance.now();
      const result = await reconcileDataset(options);
      times.reconcile.push(performance.now() - started);
      if (!result.equal || hand.missing + hand.extra + hand.different !== 0)
        throw new Error('the bench expects the synced file to equal the mock');
    }
    const hook = join(dir, 'report-rss.cjs');
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'));",
    );
    const env = { ...process.env, LEDGERHOOK_CONFIG_DIR: dir };
    const handProcess = peakRss([HAND, baseUrl, token, file], env, hook);
    const cliProcess = peakRss(
      [
        BIN,
        'reconcile',
        'expenses',
        '--base-url',
        baseUrl,
        '--token',
        token,
        '--limit',
        '1000',
        '--out',
        join(dir, 'out'),
        '--json',
      ],
      { ...env, LEDGERHOOK_CONFIG_DIR: dir },
      hook,
    );
    const hand = median(times.hand);
    const ours = median(times.reconcile);
    report(
      'Reconcile 100,000 expenses against the mock (median of 3 interleaved rounds; the mock shares the 2 cores)',
      [
        [
          'hand-written loop: file loaded whole, JSON text compared',
          `${fmt(hand, 0)} ms in process, ${fmt(handProcess.mb, 0)} MB peak RSS as a process`,
        ],
        [
          'reconcileDataset: streamed file, hash per id (canonical for suspects)',
          `${fmt(ours, 0)} ms in process (${fmt(hand / ours, 2)}x the loop's speed), ${fmt(cliProcess.mb, 0)} MB peak RSS as \`ledgerhook reconcile\` (${fmt(cliProcess.mb / handProcess.mb, 2)}x)`,
        ],
      ],
    );
  } finally {
    await stopProcess(mock.child);
  }
}
