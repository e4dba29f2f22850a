import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BulkJob, EnqueueBatch, type PendingJob } from '../../src/queue/enqueue-batch.js';

/** A job of one dataset; `built` counts the jobs turned into BullMQ's form. */
function jobs() {
  const built: string[] = [];
  const job = (dataset: string): PendingJob => ({
    dedupeId: dataset,
    build: (jobId): BulkJob => {
      built.push(dataset);
      return { name: 'sync', data: { dataset }, opts: { jobId, deduplication: { id: dataset } } };
    },
  });
  return { built, job };
}

/** Ids 1, 2, 3... in the order the batch gives them. */
function counter() {
  let next = 0;
  return () => String(++next);
}

describe('EnqueueBatch: the jobs of deliveries served at the same time go to Redis together', () => {
  it('one addBulk per turn of the event loop; each caller learns its own jobs, in order', async () => {
    const calls: string[][] = [];
    const { job } = jobs();
    // Redis answers a job that joins one already there (/invoices) with that job's id.
    const batch = new EnqueueBatch(async (sent) => {
      calls.push(sent.map((entry) => String(entry.opts.jobId)));
      return sent.map((entry) => ({
        id: (entry.data as { dataset: string }).dataset === '/invoices' ? 'old' : entry.opts.jobId,
      }));
    }, counter());
    const first = await Promise.all([
      batch.add([job('/expenses'), job('/invoices')]),
      batch.add([job('/bills')]),
      batch.add([]),
    ]);
    assert.deepEqual(first, [
      [
        { id: '1', queued: true },
        { id: 'old', queued: false },
      ],
      [{ id: '3', queued: true }],
      [],
    ]);
    assert.deepEqual(await batch.add([job('/expenses')]), [{ id: '4', queued: true }]);
    assert.deepEqual(calls, [['1', '2', '3'], ['4']]);
  });

  it('jobs of one deduplication id in a batch go once, built once: the others join the first', async () => {
    const sent: string[] = [];
    const { built, job } = jobs();
    const batch = new EnqueueBatch(async (bulk) => {
      sent.push(...bulk.map((entry) => String(entry.opts.jobId)));
      return bulk.map((entry) => ({ id: entry.opts.jobId }));
    }, counter());
    const results = await Promise.all([
      batch.add([job('user-1 /expenses'), job('user-1 /invoices')]),
      batch.add([job('user-1 /expenses'), job('user-2 /expenses')]),
    ]);
    assert.deepEqual(results, [
      [
        { id: '1', queued: true },
        { id: '2', queued: true },
      ],
      [
        { id: '1', queued: false },
        { id: '3', queued: true },
      ],
    ]);
    assert.deepEqual(sent, ['1', '2', '3']);
    assert.deepEqual(built, ['user-1 /expenses', 'user-1 /invoices', 'user-2 /expenses']);
  });

  it('a batch Redis refuses fails every caller in it, and the next batch is on its own', async () => {
    let fail = true;
    const { job } = jobs();
    const batch = new EnqueueBatch(async (bulk) => {
      if (fail) throw new Error('Redis went away');
      return bulk.map((entry) => ({ id: entry.opts.jobId }));
    }, counter());
    const results = await Promise.allSettled([batch.add([job('/a')]), batch.add([job('/b')])]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    assert.deepEqual(await batch.add([job('/c')]), [{ id: '3', queued: true }]);
  });
});
