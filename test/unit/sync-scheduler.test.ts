import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SyncScheduler } from '../../src/webhook-sync/sync-scheduler.js';

/** A job that runs until the test releases it, recording starts. */
function gate() {
  const waiting: Array<() => void> = [];
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  return {
    log,
    maxRunning: () => maxRunning,
    job: (name: string) => () => {
      log.push(name);
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      return new Promise<void>((resolve) =>
        waiting.push(() => {
          running -= 1;
          resolve();
        }),
      );
    },
    /** Releases every job running now; resolves after the scheduler has reacted. */
    async release() {
      for (const wake of waiting.splice(0)) wake();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('SyncScheduler', () => {
  const cases: Array<{ name: string; requests: string[]; concurrency: number; runs: string[]; results: string[] }> = [
    { name: 'one request runs once', requests: ['a'], concurrency: 4, runs: ['a1'], results: ['queued'] },
    {
      name: 'a burst for a running key collapses into exactly one more run',
      requests: ['a', 'a', 'a', 'a'],
      concurrency: 4,
      runs: ['a1', 'a4'],
      results: ['queued', 'queued', 'coalesced', 'coalesced'],
    },
    {
      name: 'different keys run side by side',
      requests: ['a', 'b', 'c'],
      concurrency: 4,
      runs: ['a1', 'b2', 'c3'],
      results: ['queued', 'queued', 'queued'],
    },
    {
      name: 'concurrency bounds the keys running at once',
      requests: ['a', 'b', 'c'],
      concurrency: 1,
      runs: ['a1', 'b2', 'c3'],
      results: ['queued', 'queued', 'queued'],
    },
  ];
  for (const { name, requests, concurrency, runs, results } of cases)
    it(name, async () => {
      const scheduler = new SyncScheduler(concurrency);
      const g = gate();
      const outcomes = requests.map((key, index) => scheduler.request(key, g.job(`${key}${index + 1}`)));
      assert.deepEqual(outcomes, results);
      const idle = scheduler.idle();
      while (g.log.length < runs.length) await g.release();
      await g.release();
      await idle;
      assert.deepEqual(g.log.sort(), [...runs].sort());
      assert.ok(g.maxRunning() <= concurrency);
    });

  it('never runs two jobs of one key at once, and the last job requested is the one that runs', async () => {
    const scheduler = new SyncScheduler(4);
    const g = gate();
    scheduler.request('k', g.job('first'));
    scheduler.request('k', g.job('second'));
    scheduler.request('k', g.job('third'));
    assert.deepEqual(g.log, ['first']);
    await g.release();
    assert.deepEqual(g.log, ['first', 'third']);
    assert.equal(g.maxRunning(), 1);
    await g.release();
    await scheduler.idle();
  });

  it('keeps going after a job fails', async () => {
    const scheduler = new SyncScheduler(1);
    let ran = false;
    scheduler.request('a', () => Promise.reject(new Error('boom')));
    scheduler.request('b', async () => {
      ran = true;
    });
    await scheduler.idle();
    assert.ok(ran);
  });
});
