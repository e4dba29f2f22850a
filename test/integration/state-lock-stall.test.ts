import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StateFile } from '../../src/store/file/file-store-state.js';
import { LockLease } from '../../src/store/file/lock-lease.js';
import { tempDir } from '../helpers/cli.js';
import { runnable } from '../helpers/runnable.js';

const THIEF = fileURLToPath(new URL('../../test/helpers/state-thief-child.ts', import.meta.url));

const reasonOf = (error: unknown) => (error as { details?: { reason?: string } }).details?.reason;

/** A lock directory as a holder that stood still (or crashed) a minute ago leaves it. */
function ageLock(lockPath: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath, old, old);
}

const record = (dataset: string) => ({
  lastUpdatedDate: '2026-01-01T00:00:00Z',
  items: 1,
  syncedAt: '2026-01-01T00:00:00Z',
  mode: 'full' as const,
  tokenFingerprint: 'holder',
  baseUrl: 'http://127.0.0.1:1',
  userId: '',
  dataset,
  path: dataset,
  filter: {},
  file: `/nowhere${dataset}.json`,
});

describe('the state lock when its holder stands still', () => {
  it('a holder that stood still past the stale time refuses its write: the record the other process wrote meanwhile stays', async () => {
    const path = join(tempDir(), 'state.json');
    let clock = Date.now();
    const holder = new StateFile(path, { now: () => clock });
    await assert.rejects(
      holder.update((records) => {
        // The holder stands still (here: blocked on a child process, its clock moved on by as long
        // as its lock looks stale to others); meanwhile another run takes the lock and writes.
        ageLock(`${path}.lock`);
        const thief = spawnSync(process.execPath, [...runnable(THIEF), path, 'out=x theirs'], { encoding: 'utf8' });
        assert.equal(thief.status, 0, thief.stderr);
        clock += 11_000;
        records['out=x mine'] = record('/mine');
        return { write: true, result: undefined };
      }),
      (error) => reasonOf(error) === 'lock_lost',
    );
    const written = JSON.parse(readFileSync(path, 'utf8')).datasets;
    assert.deepEqual(Object.keys(written), ['out=x theirs']);
    // The next update is as good as ever.
    await new StateFile(path).update((records) => {
      records['out=x mine'] = record('/mine');
      return { write: true, result: undefined };
    });
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(path, 'utf8')).datasets).sort(), [
      'out=x mine',
      'out=x theirs',
    ]);
  });

  it('a lock taken over while held is recorded and refused, never thrown from the refresh timer; the other holder keeps its lock', async () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    const lockPath = `${target}.lock`;
    let lost!: (error: Error) => void;
    const compromised = new Promise<Error>((resolve) => (lost = resolve));
    const lease = await LockLease.acquire(target, lockPath, 'writing the test file', { update: 1000, onLost: lost });
    lease.assertHeld();
    // Another process found it stale and took it: a new directory with its own mtime.
    rmSync(lockPath, { recursive: true });
    mkdirSync(lockPath);
    ageLock(lockPath);
    // proper-lockfile's refresh finds the mtime not its own (at its next turn, `update` ms on). Its
    // timer does not keep a process alive: this one does until then (it gates nothing).
    const keepAlive = setInterval(() => {}, 60_000);
    try {
      assert.equal(((await compromised) as NodeJS.ErrnoException).code, 'ECOMPROMISED');
    } finally {
      clearInterval(keepAlive);
    }
    assert.throws(
      () => lease.assertHeld(),
      (error) => reasonOf(error) === 'lock_lost',
    );
    await lease.release();
    assert.ok(existsSync(lockPath), "the other holder's lock is not removed by this one's release");
  });

  it('a holder past its time refuses, yet its release still removes its own lock (none is left behind)', async () => {
    const target = join(tempDir(), 'state.json');
    let clock = Date.now();
    // Two leases: the second's probe of the mtime precision is the one the first made (shared).
    for (let round = 0; round < 2; round += 1) {
      const lease = await LockLease.acquire(target, `${target}.lock`, 'writing the test file', { now: () => clock });
      clock += 6_000;
      assert.throws(
        () => lease.assertHeld(),
        (error) => reasonOf(error) === 'lock_lost',
      );
      await lease.release();
      assert.equal(existsSync(`${target}.lock`), false);
    }
  });
});
