import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { queueStatus } from '../../src/queue/queue-status.js';
import { syncDedupeId } from '../../src/queue/sync-job.js';
import { SyncQueue } from '../../src/queue/sync-queue.js';
import { startSyncWorker, type SyncRunSummary, type SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { TokenRateGate } from '../../src/queue/token-rate-gate.js';
import { waitUntil } from './helpers/wait.js';
import { dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';

const skip = await servicesSkip();

const summary = (dataset: string): SyncRunSummary => ({
  dataset,
  mode: 'incremental',
  pages: 1,
  upserted: 0,
  deleted: 0,
  total: 0,
  lastUpdatedDate: '2026-01-01T00:00:00.000Z',
});

/** A promise with its resolver, to hold a run open until the test lets it finish. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('sync queue', { skip }, () => {
  const names: string[] = [];
  const fresh = (label: string) => {
    const name = testQueueName(label);
    names.push(name);
    return name;
  };
  after(async () => {
    for (const name of names) await dropQueueKeys(name);
  });

  it('dedupe ids never collide for different (user, dataset) pairs', () => {
    const pairs: Array<[string, string]> = [
      ['a', '/expenses'],
      ['a/', 'expenses'],
      ['a.d.', '/expenses'],
      ['', '/expenses'],
      ['a', '/expenses?type=PENDING'],
    ];
    const ids = new Set(pairs.map(([user, dataset]) => syncDedupeId(user, dataset)));
    assert.equal(ids.size, pairs.length);
    for (const id of ids) assert.doesNotMatch(id, /:/);
  });

  it('a burst for one dataset becomes one job; other users and datasets get their own', async () => {
    const queue = new SyncQueue({ url: REDIS_URL, queueName: fresh('burst') });
    await queue.connect();
    try {
      const outcomes = [];
      for (let i = 0; i < 10; i += 1) outcomes.push(...(await queue.enqueueEntities('user-1', ['expense'])));
      assert.equal(outcomes.filter((o) => o.outcome === 'queued').length, 1);
      assert.equal(outcomes.filter((o) => o.outcome === 'coalesced').length, 9);
      const more = await queue.enqueueEntities('user-2', ['expense', 'invoice', 'notAnEntity']);
      assert.deepEqual(
        more.map((o) => o.outcome),
        ['queued', 'queued', 'unknown-entity'],
      );
      assert.deepEqual(
        (await queue.enqueueEntities('', ['expense'])).map((o) => o.outcome),
        ['invalid-user'],
      );
      const status = await queueStatus({ url: REDIS_URL, queueName: queue.queue.name });
      assert.equal(status.waiting, 3);
      assert.deepEqual(
        status.backlog.map((b) => [b.userId, b.waiting]),
        [
          ['user-2', 2],
          ['user-1', 1],
        ],
      );
    } finally {
      await queue.close();
    }
  });

  it('while a run is active, a burst leaves exactly one follow-up run, never two at once', async () => {
    const queueName = fresh('follow-up');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    await queue.connect();
    const first = gate();
    const started: string[] = [];
    let running = 0;
    let overlap = false;
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      limits: { concurrency: 4 },
      tokenFor: () => 'token-1',
      runSync: async ({ job }) => {
        running += 1;
        if (running > 1) overlap = true;
        started.push(job.entity);
        if (started.length === 1) await first.promise;
        running -= 1;
        return summary(job.path);
      },
      onEvent: (event) => events.push(event),
    });
    try {
      await queue.enqueueEntities('user-1', ['expense']);
      await waitUntil(() => started.length === 1, 'the first run to start');
      const burst = [];
      for (let i = 0; i < 5; i += 1) burst.push(...(await queue.enqueueEntities('user-1', ['expense'])));
      assert.ok(burst.every((o) => o.outcome === 'coalesced'));
      first.open();
      await waitUntil(() => events.filter((e) => e.type === 'sync-done').length >= 2, 'the follow-up run');
      assert.equal(started.length, 2, 'one run, then exactly one follow-up');
      assert.equal(overlap, false);
    } finally {
      first.open();
      await worker.close();
      await queue.close();
    }
  });

  it('while webhooks keep coming, runs of a dataset start at least the run spacing apart; none is lost', {
    timeout: 30_000,
  }, async () => {
    const queueName = fresh('spacing');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    await queue.connect();
    const SPACING = 400;
    const starts: number[] = [];
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      limits: { concurrency: 4, runSpacingMs: SPACING },
      tokenFor: () => 'token-1',
      runSync: async ({ job }) => {
        starts.push(performance.now());
        return summary(job.path);
      },
      onEvent: (event) => events.push(event),
    });
    try {
      const first = performance.now();
      await queue.enqueueEntities('user-1', ['expense']);
      await waitUntil(() => starts.length === 1, 'the first run');
      assert.ok((starts[0] as number) - first < SPACING, 'the first delivery after a quiet spell is read at once');
      // Deliveries every 20 ms for 1.2 s: back to back, that would be a run each.
      let last = 0;
      for (let sent = 0; sent < 60; sent += 1) {
        await queue.enqueueEntities('user-1', ['expense']);
        last = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await waitUntil(() => (starts.at(-1) as number) > last, 'a run after the last delivery');
      const gaps = starts.slice(1).map((start, index) => start - (starts[index] as number));
      // The spacing counts from when a run's key was set, a moment before runSync is called (under
      // load, that moment grows): back to back, runs would start a few ms apart.
      assert.ok(
        gaps.every((gap) => gap >= SPACING / 2),
        `runs start about ${SPACING} ms apart: ${gaps.map(Math.round)}`,
      );
      // One run at the start, then at most one per spacing while they came, the one after the last,
      // and at most one more (a delivery that came while a job was only checking its spacing is kept
      // by BullMQ as that job's follow-up).
      const most = Math.floor((last - first) / SPACING) + 3;
      assert.ok(starts.length <= most, `${starts.length} runs for 61 deliveries over ${Math.round(last - first)} ms`);
      assert.ok(events.some((event) => event.type === 'sync-spaced'));
      assert.equal(events.filter((event) => event.type === 'sync-failed').length, 0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  // A slot still waiting for a job when the shutdown begins must not take the job another slot has just
  // put back and run it against an already-fired signal: close() would then never return.
  it('on shutdown a worker finishes its runs, or after the grace period puts their jobs back unused', {
    timeout: 30_000,
  }, async () => {
    const queueName = fresh('shutdown');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    const events: SyncWorkerEvent[] = [];
    const release = gate();
    const startWorker = (grace: 'finish' | 'return') =>
      startSyncWorker({
        url: REDIS_URL,
        queueName,
        tokenFor: () => 'token-1',
        runSync: async ({ job, signal }) => {
          if (grace === 'finish') await release.promise;
          else
            await new Promise((_, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
            );
          return summary(job.path);
        },
        onEvent: (event) => events.push(event),
      });
    try {
      // 1. A run that can finish does, before close() resolves.
      let worker = await startWorker('finish');
      await queue.enqueueEntities('user-1', ['expense']);
      await waitUntil(() => events.some((e) => e.type === 'sync-start'), 'the run to start');
      const closing = worker.close(60_000);
      release.open();
      await closing;
      assert.ok(events.some((e) => e.type === 'sync-done'));
      assert.equal(await queue.queue.getCompletedCount(), 1);

      // 2. A run that does not finish within the grace period is stopped and its job put back.
      events.length = 0;
      worker = await startWorker('return');
      await queue.enqueueEntities('user-2', ['invoice']);
      await waitUntil(() => events.some((e) => e.type === 'sync-start'), 'the second run to start');
      await worker.close(0);
      assert.ok(events.some((e) => e.type === 'job-returned'));
      assert.ok(!events.some((e) => e.type === 'sync-failed'));
      const [waiting] = await queue.queue.getWaiting();
      assert.equal(waiting?.data.userId, 'user-2');
      assert.equal(waiting?.attemptsMade, 0, 'putting a job back uses no attempt');
    } finally {
      release.open();
      await queue.close();
    }
  });

  it('a worker without a token for the user fails the job without retrying it', async () => {
    const queueName = fresh('no-token');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      tokenFor: () => undefined,
      runSync: async () => assert.fail('must not run'),
      onEvent: (event) => events.push(event),
    });
    try {
      await queue.enqueueEntities('stranger', ['expense']);
      await waitUntil(async () => (await queue.queue.getFailedCount()) > 0, 'the job to fail');
      assert.equal(await queue.queue.getFailedCount(), 1);
      assert.ok(events.some((e) => e.type === 'no-token' && e.userId === 'stranger'));
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('the per-token limiter is shared through Redis and a 429 pause holds only that token', async () => {
    const queueName = fresh('limit');
    const a = new Redis(REDIS_URL);
    const b = new Redis(REDIS_URL);
    try {
      // Two gates = two workers sharing one budget of 3 requests per minute.
      const one = await TokenRateGate.create(a, queueName, { requests: 3, windowSeconds: 60 });
      const two = await TokenRateGate.create(b, queueName, { requests: 3, windowSeconds: 60 });
      await one.acquire('token-a');
      await two.acquire('token-a');
      await one.acquire('token-a');
      const stop = new AbortController();
      const fourth = two.acquire('token-a', stop.signal);
      await two.acquire('token-b'); // another token is not held back
      stop.abort(new Error('gave up waiting'));
      await assert.rejects(fourth, /gave up waiting/);

      await one.pause('token-c', 60_000);
      const held = new AbortController();
      const paused = two.acquire('token-c', held.signal);
      await two.acquire('token-d');
      held.abort(new Error('still paused'));
      await assert.rejects(paused, /still paused/);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
