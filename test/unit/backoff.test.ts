/**
 * One back-off (util/backoff.ts) for every retrying caller: its bounds, and the waits the HTTP client
 * and the queue's jobs actually take with a fixed random source, each the formula's (random × a base
 * doubling from the first wait, capped); listen --sync's are in webhook-sync-retry.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from 'bullmq';
import { findEntity } from '@ledgerhook/webhooks';
import { fetchJson } from '../../src/http/fetch-json.js';
import { jobProcessor } from '../../src/queue/job-processor.js';
import type { SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { normalizeSyncWorkerOptions } from '../../src/queue/sync-worker-options.js';
import { backoffWait } from '../../src/util/backoff.js';
import { flakyListServer } from '../helpers/flaky-list-server.js';

describe('backoffWait', () => {
  it('waits below a base that doubles from the first wait and stops at the cap', () => {
    const schedule = { firstMs: 100, capMs: 1000 };
    const bases = [1, 2, 3, 4, 5, 6, 40, 10_000].map((retry) => backoffWait(retry, schedule, () => 0.999_999));
    assert.deepEqual(bases, [99, 199, 399, 799, 999, 999, 999, 999]);
    for (const retry of [1, 5, 10_000])
      assert.equal(
        backoffWait(retry, schedule, () => 0),
        0,
      );
    assert.equal(
      backoffWait(3, schedule, () => 0.5),
      200,
    );
  });

  it('defaults to 2 s doubling to 60 s', () => {
    assert.equal(
      backoffWait(1, {}, () => 0.5),
      1000,
    );
    assert.equal(
      backoffWait(20, undefined, () => 0.5),
      30_000,
    );
  });
});

describe('every retrying caller waits as backoffWait says', () => {
  it('the HTTP client, from its policy (250 ms doubling, full jitter)', async () => {
    const server = await flakyListServer(3);
    const waits: number[] = [];
    try {
      await fetchJson({
        url: new URL(`${server.baseUrl}/expenses`),
        headers: {},
        random: () => 0.5,
        sleep: async (ms: number) => void waits.push(ms),
      });
    } finally {
      await server.close();
    }
    assert.deepEqual(waits, [125, 250, 500]);
  });

  it("the queue's jobs, from their retry schedule and the retries their data records", async (t) => {
    t.mock.method(Math, 'random', () => 0.5);
    const events: SyncWorkerEvent[] = [];
    const delayedTo: number[] = [];
    const processor = jobProcessor(
      normalizeSyncWorkerOptions({
        url: 'redis://127.0.0.1:9',
        queueName: 'unused',
        tokenFor: () => 'tok',
        runSync: async () => {
          throw new Error('store unreachable');
        },
        retry: { firstMs: 1000, capMs: 5000 },
      }),
      {
        emit: (event: SyncWorkerEvent) => events.push(event),
        stopping: new AbortController().signal,
        spacing: async () => 0,
      } as unknown as Parameters<typeof jobProcessor>[1],
    );
    for (const count of [0, 1, 5]) {
      const job = {
        name: 'sync',
        id: `j${count}`,
        attemptsMade: 0,
        timestamp: Date.now(),
        data: { userId: 'u1', entity: 'expense', path: findEntity('expense')?.path, filter: {}, retry: { count } },
        updateData: async () => {},
        moveToDelayed: async (until: number) => void delayedTo.push(until),
      } as unknown as Job;
      await assert.rejects(processor(job, 'lock'));
    }
    const waits = events.flatMap((event) => (event.type === 'sync-failed' ? [event.retryInMs] : []));
    assert.deepEqual(waits, [500, 1000, 2500]);
    assert.equal(delayedTo.length, 3);
  });
});
