import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { storeSync } from '../../src/queue/store-sync.js';
import { SyncQueue } from '../../src/queue/sync-queue.js';
import { startSyncWorker, type SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { SYNC_JOB_NAME } from '../../src/queue/sync-job.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { inMemoryTelemetry, parentOf, points } from '../helpers/in-memory-otel.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';
import { waitUntil } from './helpers/wait.js';

const skip = await servicesSkip();

describe('telemetry in the worker: job → sync → page fetches → commit (Redis, Postgres)', { skip }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("a job continues its delivery's trace; a hostile traceparent starts a new one; queue depth is a gauge", async () => {
    const otel = await inMemoryTelemetry();
    const api = await startPagedListServer(12);
    const schema = await createTestSchema();
    const store = new PostgresStore({ url: schema.url, maxConnections: 3 });
    await store.migrate();
    const queueName = testQueueName('otel');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    await queue.connect();
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      limits: { concurrency: 1 },
      tokenFor: () => 'worker-token',
      runSync: storeSync({ store, baseUrl: api.baseUrl, limit: 5 }),
      telemetry: otel.telemetry,
      onEvent: (event) => events.push(event),
    });
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      await store.close();
      await api.close();
      await schema.drop();
      await dropQueueKeys(queueName);
      await otel.close();
    });

    // The listener's side: the delivery's span, carried by its job as a W3C traceparent.
    const delivery = otel.telemetry.span('delivery');
    const traceparent = delivery.traceparent();
    assert.match(traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    delivery.end();
    await queue.enqueueEntities('user-1', ['expense'], 'dlv_1', traceparent);
    await waitUntil(() => events.some((event) => event.type === 'sync-done'), 'the first job');
    // A job whose data was written by someone else: its traceparent is not one, and is ignored.
    await queue.queue.add(SYNC_JOB_NAME, {
      userId: 'user-2',
      entity: 'expense',
      path: '/expenses',
      filter: {},
      traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01\nx-injected: 1`,
    });
    await waitUntil(() => events.filter((event) => event.type === 'sync-done').length === 2, 'the second job');

    const spans = otel.spans();
    const jobs = spans.filter((span) => span.name === 'ledgerhook.job');
    assert.equal(jobs.length, 2);
    const deliverySpan = spans.find((span) => span.name === 'delivery') as ReadableSpan;
    const continued = jobs.find((job) => parentOf(job) === deliverySpan.spanContext().spanId);
    assert.ok(continued, "the job's span is a child of the delivery's");
    assert.equal(continued.spanContext().traceId, deliverySpan.spanContext().traceId);
    const fresh = jobs.find((job) => job !== continued) as ReadableSpan;
    assert.equal(parentOf(fresh), undefined, 'a malformed traceparent starts a new trace');
    assert.notEqual(fresh.spanContext().traceId, 'a'.repeat(32));

    const children = (parent: ReadableSpan) =>
      spans.filter((span) => parentOf(span) === parent.spanContext().spanId).map((span) => span.name);
    assert.deepEqual(children(continued), ['ledgerhook.sync']);
    const run = spans.find((span) => parentOf(span) === continued.spanContext().spanId) as ReadableSpan;
    assert.equal(run.attributes['ledgerhook.store'], 'postgres');
    assert.equal(run.attributes['ledgerhook.delivery.id'], 'dlv_1');
    assert.deepEqual(children(run).sort(), [
      'ledgerhook.store.commit',
      'ledgerhook.sync.page',
      'ledgerhook.sync.page',
      'ledgerhook.sync.page',
    ]);
    assert.ok(!JSON.stringify(spans.map((span) => span.attributes)).includes('worker-token'));

    const metrics = await otel.metrics();
    const depth = points(metrics.get('ledgerhook.queue.depth'));
    assert.deepEqual(depth.map(([attributes]) => attributes['ledgerhook.queue.state']).sort(), [
      'active',
      'delayed',
      'prioritized',
      'waiting',
    ]);
    assert.ok(depth.every(([attributes]) => attributes['messaging.destination.name'] === queueName));
    assert.equal(points(metrics.get('ledgerhook.sync.duration')).length > 0, true);
  });
});
