import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { startMockServer } from '../../src/index.js';
import { queueStatus } from '../../src/queue/queue-status.js';
import { retryFailedJobs } from '../../src/queue/queue-retry.js';
import { storeSync } from '../../src/queue/store-sync.js';
import { SyncQueue } from '../../src/queue/sync-queue.js';
import { startSyncWorker, type SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import {
  createTestSchema,
  DATABASE_URL,
  dropQueueKeys,
  REDIS_URL,
  servicesSkip,
  testQueueName,
} from './helpers/services.js';
import { waitUntil } from './helpers/wait.js';

const skip = await servicesSkip();

/**
 * A TCP proxy to Postgres that the test owns: `down()` cuts every connection and refuses new ones
 * (an outage as the worker sees it), `up()` ends it. The shared Postgres is never stopped.
 */
async function postgresProxy() {
  const target = new URL(DATABASE_URL);
  const sockets = new Set<Socket>();
  let isDown = false;
  const server = createServer((client) => {
    if (isDown) return client.destroy();
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (schemaUrl: string) => {
      const url = new URL(schemaUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.href;
    },
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a delivery answered 2xx is synced, even across an outage', { skip }, () => {
  const queues: string[] = [];
  after(async () => {
    for (const name of queues) await dropQueueKeys(name);
  });

  it('the store unreachable for longer than the old 5-attempt budget: the job retries (queue status says so), then the data equals the server', {
    timeout: 60_000,
  }, async () => {
    const mock = await startMockServer({ port: 0, items: 25 });
    const schema = await createTestSchema();
    const proxy = await postgresProxy();
    const queueName = testQueueName('outage');
    queues.push(queueName);
    const store = new PostgresStore({ url: proxy.url(schema.url), maxConnections: 2 });
    await store.migrate();
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      limits: { concurrency: 1 },
      tokenFor: () => mock.token,
      runSync: storeSync({ store, baseUrl: mock.url }),
      retry: { firstMs: 20, capMs: 100 },
      onEvent: (event) => events.push(event),
    });
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    try {
      proxy.down();
      await queue.connect();
      await queue.enqueueEntities('user-1', ['expense']);
      const failures = () => events.filter((event) => event.type === 'sync-failed');
      // The old budget was 5 attempts; 8 transient failures prove it is gone.
      await waitUntil(() => failures().length >= 8, '8 transient failures');
      assert.ok(failures().every((event) => event.type === 'sync-failed' && event.willRetry));
      // Between its attempts the job is delayed, and status lists it as retrying; during an attempt it
      // is active (with full jitter the wait may be a few ms), so one snapshot may fall on either.
      let status = await queueStatus({ url: REDIS_URL, queueName });
      await waitUntil(async () => {
        status = await queueStatus({ url: REDIS_URL, queueName });
        return status.retrying.length > 0;
      }, 'queue status listing the job as retrying');
      assert.equal(status.failed, 0, 'no job ended failed during the outage');
      const retrying = status.retrying[0];
      assert.ok(retrying, JSON.stringify(status));
      assert.equal(retrying.userId, 'user-1');
      assert.ok(retrying.retries >= 1);
      assert.notEqual(retrying.lastError, '');
      proxy.up();
      await waitUntil(() => events.some((event) => event.type === 'sync-done'), 'the sync after the outage');
      const rows = await schema.query(
        "SELECT item FROM ledgerhook_items WHERE user_id = 'user-1' AND dataset = '/expenses' ORDER BY item_id",
      );
      const truth = mock.service.dataset('/expenses').data;
      assert.equal(rows.rowCount, truth.length);
      const after = await queueStatus({ url: REDIS_URL, queueName });
      assert.deepEqual([after.failed, after.delayed, after.retrying.length], [0, 0, 0]);
      assert.deepEqual(await retryFailedJobs({ url: REDIS_URL, queueName }), { requeued: [], failedLeft: 0 });
    } finally {
      await queue.close();
      await worker.close(0);
      await store.close();
      await proxy.close();
      await schema.drop();
      await mock.close();
    }
  });
});
