/**
 * One back-off (util/backoff.ts) for every retrying caller: its bounds, and the waits the HTTP client,
 * listen --sync's runs and the queue's jobs actually take with a fixed random source, each the
 * formula's (random × a base doubling from the first wait, capped).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Job } from 'bullmq';
import { findEntity } from '../../src/catalogue/entities.js';
import { fetchJson } from '../../src/http/fetch-json.js';
import { jobProcessor } from '../../src/queue/job-processor.js';
import type { SyncWorkerEvent, SyncWorkerOptions } from '../../src/queue/sync-worker.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { backoffWait } from '../../src/util/backoff.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { tempDir } from '../helpers/cli.js';

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
  const random = Math.random;
  beforeEach(() => {
    Math.random = () => 0.5;
  });
  afterEach(() => {
    Math.random = random;
  });

  /** A list server that answers 503 `failures` times, then one page. */
  async function flaky(failures: number) {
    let seen = 0;
    const server = createServer((_request, response) => {
      seen += 1;
      if (seen <= failures) return void response.writeHead(503).end('busy');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: [{ id: 1 }], lastUpdatedDate: '2026-11-24T00:00:00Z' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/rest/v5`, close: () => new Promise((done) => server.close(done)) };
  }

  it('the HTTP client, from its policy (250 ms doubling, full jitter)', async () => {
    const server = await flaky(3);
    const waits: number[] = [];
    try {
      await fetchJson({
        url: new URL(`${server.url}/expenses`),
        headers: {},
        random: () => 0.5,
        sleep: async (ms: number) => void waits.push(ms),
      });
    } finally {
      await server.close();
    }
    assert.deepEqual(waits, [125, 250, 500]);
  });

  it("listen --sync's runs, from their retry option", async () => {
    const server = await flaky(3);
    const events: WebhookSyncEvent[] = [];
    const dir = tempDir();
    const sync = createWebhookSync({
      baseUrl: server.url,
      tokenFor: () => 'tok',
      store: new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') }),
      retry: { firstMs: 10, capMs: 30 },
      maxWaitMs: 0,
      onEvent: (event) => events.push(event),
    });
    try {
      sync.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] })));
      await sync.idle();
    } finally {
      await server.close();
    }
    const waits = events.flatMap((event) => (event.type === 'sync-retry' ? [event.inMs] : []));
    assert.deepEqual(waits, [5, 10, 15]);
  });

  it("the queue's jobs, from transientRetry and the retries their data records", async () => {
    const events: SyncWorkerEvent[] = [];
    const delayedTo: number[] = [];
    const processor = jobProcessor(
      {
        tokenFor: () => 'tok',
        runSync: async () => {
          throw new Error('store unreachable');
        },
        transientRetry: { firstMs: 1000, capMs: 5000 },
      } as unknown as SyncWorkerOptions,
      {
        emit: (event: SyncWorkerEvent) => events.push(event),
        stopping: new AbortController().signal,
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
