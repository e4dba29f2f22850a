import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BulkJob, EnqueueBatch } from '../../src/queue/enqueue-batch.js';

const job = (id: string): BulkJob => ({ name: 'sync', data: { id }, opts: { jobId: id } });

describe('EnqueueBatch: the jobs of deliveries served at the same time go to Redis together', () => {
  it('one addBulk per turn of the event loop; each caller gets its own ids, in order', async () => {
    const calls: string[][] = [];
    // Redis answers a job that joins an existing one with that job's id ("b" joins "a").
    const batch = new EnqueueBatch(async (jobs) => {
      calls.push(jobs.map((entry) => String(entry.opts.jobId)));
      return jobs.map((entry) => ({ id: entry.opts.jobId === 'b' ? 'a' : entry.opts.jobId }));
    });
    const first = await Promise.all([batch.add([job('a'), job('b')]), batch.add([job('c')]), batch.add([])]);
    assert.deepEqual(first, [['a', 'a'], ['c'], []]);
    const second = await batch.add([job('d')]);
    assert.deepEqual(second, ['d']);
    assert.deepEqual(calls, [['a', 'b', 'c'], ['d']]);
  });

  it('jobs of one deduplication id in a batch go once: the others join the first', async () => {
    const sent: string[] = [];
    const batch = new EnqueueBatch(async (jobs) => {
      sent.push(...jobs.map((entry) => String(entry.opts.jobId)));
      return jobs.map((entry) => ({ id: entry.opts.jobId }));
    });
    const one = (id: string, dedupe: string): BulkJob => ({
      ...job(id),
      opts: { jobId: id, deduplication: { id: dedupe } },
    });
    const ids = await Promise.all([
      batch.add([one('a', 'user-1 /expenses'), one('b', 'user-1 /invoices')]),
      batch.add([one('c', 'user-1 /expenses'), one('d', 'user-2 /expenses')]),
    ]);
    assert.deepEqual(ids, [
      ['a', 'b'],
      ['a', 'd'],
    ]);
    assert.deepEqual(sent, ['a', 'b', 'd']);
  });

  it('a batch Redis refuses fails every caller in it, and the next batch is on its own', async () => {
    let fail = true;
    const batch = new EnqueueBatch(async (jobs) => {
      if (fail) throw new Error('Redis went away');
      return jobs.map((entry) => ({ id: entry.opts.jobId }));
    });
    const results = await Promise.allSettled([batch.add([job('a')]), batch.add([job('b')])]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    assert.deepEqual(await batch.add([job('c')]), ['c']);
  });
});
