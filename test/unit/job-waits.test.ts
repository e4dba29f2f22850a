/**
 * A sync job that must wait for its dataset (the run spacing, or another run holding it) is
 * delayed without using an attempt, and says so; a spacing Redis cannot answer never holds a job.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from 'bullmq';
import { DelayedError } from 'bullmq';
import { findEntity } from '@ledgerhook/webhooks';
import { LedgerhookError } from '../../src/errors.js';
import { jobProcessor } from '../../src/queue/job-processor.js';
import type { RunSync, SyncRunSummary, SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { normalizeSyncWorkerOptions } from '../../src/queue/sync-worker-options.js';

const summary: SyncRunSummary = {
  dataset: '/expenses',
  mode: 'incremental',
  pages: 1,
  upserted: 0,
  deleted: 0,
  total: 0,
  lastUpdatedDate: '2026-01-01T00:00:00.000Z',
};

function setUp(spacing: () => Promise<number>, runSync: RunSync) {
  const events: SyncWorkerEvent[] = [];
  const delayedTo: number[] = [];
  const runs: string[] = [];
  const processor = jobProcessor(
    normalizeSyncWorkerOptions({
      url: 'redis://127.0.0.1:9',
      queueName: 'unused',
      tokenFor: () => 'tok',
      runSync: async (input) => {
        runs.push(input.job.userId);
        return runSync(input);
      },
      limits: { runSpacingMs: 700 },
      retry: { firstMs: 100 },
    }),
    {
      emit: (event: SyncWorkerEvent) => events.push(event),
      stopping: new AbortController().signal,
      backoffFor: () => undefined,
      spacing,
    } as unknown as Parameters<typeof jobProcessor>[1],
  );
  const job = {
    name: 'sync',
    id: 'j1',
    attemptsMade: 0,
    timestamp: Date.now(),
    data: { userId: 'u1', entity: 'expense', path: findEntity('expense')?.path, filter: {} },
    updateData: async () => {},
    moveToDelayed: async (until: number) => void delayedTo.push(until),
  } as unknown as Job;
  return { events, delayedTo, runs, run: () => processor(job, 'lock') };
}

describe('a sync job waiting for its dataset', () => {
  it('within the run spacing: delayed by what is left of it, not run, no attempt used', async () => {
    const { events, delayedTo, runs, run } = setUp(
      async () => 300,
      async () => summary,
    );
    const before = Date.now();
    await assert.rejects(run(), DelayedError);
    assert.deepEqual(runs, []);
    assert.ok((delayedTo[0] as number) >= before + 300);
    assert.deepEqual(
      events.map((event) => event.type),
      ['sync-spaced'],
    );
  });

  it('another run holds the dataset: delayed at least the run spacing, no attempt used', async () => {
    const { events, delayedTo, run } = setUp(
      async () => 0,
      async () => {
        throw new LedgerhookError('ERR_IO', 'another run of /expenses is in progress', {
          details: { reason: 'dataset_busy' },
        });
      },
    );
    const before = Date.now();
    await assert.rejects(run(), DelayedError);
    assert.ok((delayedTo[0] as number) >= before + 700, 'not sooner than the spacing');
    const busy = events.find((event) => event.type === 'dataset-busy');
    assert.ok(busy && busy.type === 'dataset-busy' && busy.retryInMs >= 700);
    assert.equal(events.filter((event) => event.type === 'sync-failed').length, 0);
  });

  it('a spacing Redis cannot answer runs the job now', async () => {
    const { events, runs, run } = setUp(
      async () => {
        throw new Error('LOADING Redis is loading the dataset in memory');
      },
      async () => summary,
    );
    assert.deepEqual(await run(), summary);
    assert.deepEqual(runs, ['u1']);
    assert.deepEqual(
      events.map((event) => event.type),
      ['sync-start', 'sync-done'],
    );
  });
});
