/**
 * `ledgerhook history` reads the change log beside a data file with the bounds captures are read
 * with: a hole of zero bytes is skipped, a line over the cap is skipped and counted, `--last N` reads
 * from the end, and only a regular file is read or written (never through a symlink). `history` runs
 * as a process of its own (its peak memory is measured); the syncs that make its log run in process
 * (runInProcess), except the one refused through a symlink.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, symlinkSync, truncateSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, runCliMeasured, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

const MIB = 1024 * 1024;
/**
 * The hole: 160 MiB by default, already more than the 150 MB a run may peak at (a reader that held
 * the log would fail the bound); 300 MB in the soak tier (LEDGERHOOK_SOAK=1), where reading it (the
 * kernel zero-fills it) costs seconds more.
 */
const HOLE_MB = process.env.LEDGERHOOK_SOAK === '1' ? 300 : 160;

/** A dataset synced twice (so its log holds changes), and the commands around it. */
async function synced() {
  const server = await startPagedListServer(5);
  const dir = tempDir();
  const out = join(dir, 'out');
  const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
  const sync = (run = runInProcess) =>
    run(['sync', 'expenses', '--out', out, '--base-url', server.baseUrl, '--token', 't'], { env });
  assert.equal((await sync()).code, 0);
  server.put({ id: 2, amount: 20, type: 'BUSINESS' });
  assert.equal((await sync()).code, 0);
  const history = (...args: string[]) =>
    runCliMeasured(['history', 'expenses', '--out', out, ...args], { env, timeoutMs: 40_000 });
  return { server, out, log: join(out, 'expenses.changes.jsonl'), sync, history };
}

describe('history reads its log with bounds', () => {
  it(`${HOLE_MB} MB of zero bytes in the log (a hole): --last 3 gives the newest changes in seconds and little memory (300 MB with LEDGERHOOK_SOAK=1)`, {
    timeout: 90_000,
  }, async () => {
    const s = await synced();
    try {
      // A sparse hole (no disk), with no newline after it: the next run appends right behind it.
      truncateSync(s.log, statSync(s.log).size + HOLE_MB * MIB);
      s.server.put({ id: 3, amount: 30, type: 'BUSINESS' });
      s.server.put({ id: 4, amount: 40, type: 'BUSINESS' });
      assert.equal((await s.sync()).code, 0);
      const latest = await s.history('--last', '3', '--json');
      assert.equal(latest.code, 0, latest.stderr);
      const { entries, skippedLines } = JSON.parse(latest.stdout);
      assert.deepEqual(
        entries.map((entry: { id: number; item: { amount: number } }) => [entry.id, entry.item.amount]),
        [
          [2, 20],
          [3, 30],
          [4, 40],
        ],
      );
      assert.equal(skippedLines, 0, 'a hole is nothing to count');
      assert.ok(latest.ms < 20_000, `history --last 3 took ${Math.round(latest.ms)} ms`);
      assert.ok(latest.peakMb < 150, `history --last 3 peaked at ${latest.peakMb.toFixed(0)} MB`);
      // One id's versions read the whole log, past the hole, as boundedly.
      const one = await s.history('2', '--json');
      assert.equal(one.code, 0, one.stderr);
      assert.deepEqual(
        JSON.parse(one.stdout).entries.map((entry: { item: { amount: number } }) => entry.item.amount),
        [20],
      );
      assert.ok(one.peakMb < 150, `history ID peaked at ${one.peakMb.toFixed(0)} MB`);
    } finally {
      await s.server.close();
    }
  });

  it('a line over 16 MiB is skipped, counted and said once, and the changes around it are shown', async () => {
    const s = await synced();
    try {
      appendFileSync(s.log, `${'x'.repeat(17 * MIB)}\n`);
      s.server.put({ id: 5, amount: 50, type: 'BUSINESS' });
      assert.equal((await s.sync()).code, 0);
      const all = await s.history('--json');
      assert.equal(all.code, 0, all.stderr);
      const { entries, skippedLines } = JSON.parse(all.stdout);
      assert.equal(skippedLines, 1);
      assert.deepEqual(
        entries.map((entry: { id: number }) => entry.id),
        [2, 5],
      );
      assert.ok(all.peakMb < 150, `peaked at ${all.peakMb.toFixed(0)} MB`);
      const human = await s.history();
      assert.match(human.stderr, /^warning: 1 line of the history kept beside \S+expenses\.json skipped/m);
    } finally {
      await s.server.close();
    }
  });

  it('a log that is a symlink is refused in one line: never read (/dev/zero) nor written through (a file elsewhere)', {
    timeout: 60_000,
  }, async () => {
    const s = await synced();
    try {
      rmSync(s.log);
      symlinkSync('/dev/zero', s.log);
      const zero = await s.history('--last', '3');
      assert.equal(zero.code, 2, zero.stderr);
      assertOneLineError(zero);
      assert.match(zero.stderr, /expenses\.changes\.jsonl is not a regular file/);
      assert.ok(zero.ms < 20_000, `took ${Math.round(zero.ms)} ms`);
      assert.ok(zero.peakMb < 150, `peaked at ${zero.peakMb.toFixed(0)} MB`);

      const elsewhere = join(tempDir(), 'elsewhere.jsonl');
      writeFileSync(elsewhere, 'not yours\n');
      rmSync(s.log);
      symlinkSync(elsewhere, s.log);
      const before = readFileSync(join(s.out, 'expenses.json'), 'utf8');
      s.server.put({ id: 1, amount: 10, type: 'BUSINESS' });
      const refused = await s.sync(runCli);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /is not a regular file/);
      assert.equal(readFileSync(elsewhere, 'utf8'), 'not yours\n');
      assert.equal(readFileSync(join(s.out, 'expenses.json'), 'utf8'), before, 'nothing merged without its log');
    } finally {
      await s.server.close();
    }
  });
});
