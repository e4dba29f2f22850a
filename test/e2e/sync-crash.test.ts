import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startMockServer } from '../../src/index.js';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** Starts a sync and SIGKILLs it after `afterMs`; resolves when it is gone. */
function killedSync(args: string[], env: Record<string, string>, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// 5 kills by default (a change made between kills, a checked rerun, a change and a checked final run);
// the full 24 only in the soak tier (LEDGERHOOK_SOAK=1).
const KILLS = process.env.LEDGERHOOK_SOAK === '1' ? 24 : 5;

describe('sync survives being killed', () => {
  it(`SIGKILLed at random moments (${KILLS} kills over full and incremental runs), a rerun always equals the server (after a continued read, the run after it)`, async () => {
    // Latency makes each run long enough to be killed in the middle of fetching or writing.
    const mock = await startMockServer({ port: 0, items: 3000, faults: { latencyMs: 3 } });
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const args = [
      'sync',
      '/expenses/expenses',
      '--type',
      'PENDING',
      '--base-url',
      mock.url,
      '--token',
      mock.token,
      '--out',
      out,
      '--limit',
      '50',
    ];
    const truth = () => mock.service.dataset('/expenses/expenses', { type: 'PENDING' }).data;
    let random = 12345;
    const nextRandom = () => {
      random = (random * 1103515245 + 12345) % 2 ** 31;
      return random / 2 ** 31;
    };
    try {
      for (let kill = 0; kill < KILLS; kill += 1) {
        if (kill % 3 === 1) mock.service.mutate({ path: '/expenses', create: 5, update: 10, delete: 3, retype: 4 });
        await killedSync(args, env, 120 + Math.floor(nextRandom() * 700));
        // Whatever the kill left, the file on disk is whole JSON (or absent), never half-written.
        for (const name of readdirSync(out).filter((n) => n.endsWith('.json')))
          JSON.parse(readFileSync(join(out, name), 'utf8'));
        if (kill % 4 === 3) {
          // The killed runs are real processes; the checked reruns are the same sync command in process.
          let rerun = await runInProcess([...args, '--json'], { env });
          assert.equal(rerun.code, 0, rerun.stderr);
          // A full read continued from a killed run's checkpoint is as of its first page: an
          // edit made in between is the next (incremental) run's, as for any long read edited while read.
          if (JSON.parse(rerun.stdout).resumed) rerun = await runInProcess([...args, '--json'], { env });
          assert.equal(rerun.code, 0, rerun.stderr);
          assert.deepEqual(
            JSON.parse(readFileSync(JSON.parse(rerun.stdout).file, 'utf8')),
            truth(),
            `after kill ${kill}`,
          );
        }
      }
      mock.service.mutate({ path: '/expenses', create: 3, update: 3, retype: 2 });
      const final = await runCli([...args, '--json'], { env, timeoutMs: 60_000 });
      assert.equal(final.code, 0, final.stderr);
      assert.deepEqual(JSON.parse(readFileSync(JSON.parse(final.stdout).file, 'utf8')), truth());
      // The data file and its change log (the history of the incremental runs), nothing else.
      assert.deepEqual(
        readdirSync(out).filter((name) => name !== 'expenses.expenses.type=PENDING@23-29.changes.jsonl'),
        ['expenses.expenses.type=PENDING@23-29.json'],
        'temporary files of killed runs are cleaned up',
      );
    } finally {
      await mock.close();
    }
  });

  it('Ctrl-C stops cleanly: exit 130, one line, previous file and state intact; the pages read are kept (hidden) and the next run goes on from them', async () => {
    const mock = await startMockServer({ port: 0, items: 1000 });
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const args = ['sync', 'expenses', '--base-url', mock.url, '--token', mock.token, '--out', out, '--limit', '100'];
    assert.equal((await runInProcess(args, { env })).code, 0);
    const before = readFileSync(join(out, 'expenses.json'), 'utf8');
    const state = (await runInProcess(['state', 'list', '--json'], { env })).stdout;
    // Slow answers while the read that is interrupted runs, so that Ctrl-C comes in its middle.
    mock.service.setFaults({ latencyMs: 20 });
    const child = spawn(process.execPath, [BIN, ...args, '--full', '--limit', '10'], {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // Interrupted in the middle of the read: once it reports a page (progress is on stderr), not after a
    // guessed delay; a run that ends first fails the test below instead of leaving it waiting.
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve());
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (/page \d+/.test(stderr)) resolve();
      });
    });
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.on('exit', resolve));
    mock.service.setFaults(undefined);
    assert.equal(code, 130);
    assert.match(stderr, /sync stopped; left as they were \(nothing half-written\): \/expenses/);
    // Progress lines ("/expenses: page 3, ...") and then exactly one error line; stdout holds no result.
    const lines = stderr.trim().split('\n');
    assert.equal(lines.filter((line) => !line.startsWith('/expenses: ')).length, 1, stderr);
    assert.match(lines.at(-1) ?? '', /read, not committed.*; kept: the next run goes on at page \d+\)/);
    const at = Number(/goes on at page (\d+)/.exec(lines.at(-1) ?? '')?.[1]);
    assert.equal(stdout, '');
    assert.equal(readFileSync(join(out, 'expenses.json'), 'utf8'), before);
    assert.equal((await runInProcess(['state', 'list', '--json'], { env })).stdout, state);
    // Beside the untouched data: only the stopped read's staging file and its checkpoint, hidden.
    assert.deepEqual(
      readdirSync(out)
        .filter((name) => name !== 'expenses.json')
        .map((name) => name.replace(/\.\d+\.[0-9a-f]{8}\./, '.PID.NONCE.')),
      ['.expenses.json.PID.NONCE.checkpoint', '.expenses.json.PID.NONCE.staging'],
    );
    // The next run (no --full this time) goes on with that full read where it stopped, and commits it.
    const next = await runCli([...args.filter((arg) => arg !== '100'), '10', '--json'], { env, timeoutMs: 60_000 });
    assert.equal(next.code, 0, next.stderr);
    const summary = JSON.parse(next.stdout);
    assert.deepEqual([summary.mode, summary.fullReason, summary.resumed?.fromPage], ['full', 'requested', at]);
    // Then at once an incremental run from the read's first lastUpdatedDate: nothing changed meanwhile.
    assert.deepEqual(summary.catchUp, { pages: 1, upserted: 0, deleted: 0 });
    assert.deepEqual(
      JSON.parse(readFileSync(join(out, 'expenses.json'), 'utf8')),
      mock.service.dataset('/expenses', {}).data,
    );
    // The catch-up run is recorded in the history beside the data; nothing else is left.
    assert.deepEqual(readdirSync(out), ['expenses.changes.jsonl', 'expenses.json']);
    await mock.close();
  });
});
