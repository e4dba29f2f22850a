import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startListener } from '../../src/listen/listener.js';
import { createQueueRecorder } from '../../src/queue/queue-recorder.js';
import { queueStatus } from '../../src/queue/queue-status.js';
import { SyncQueue } from '../../src/queue/sync-queue.js';
import { dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';
import { SECRET, sendWebhook } from './helpers/scale-rig.js';

const skip = await servicesSkip();

/** A listener whose queue subscriber is awaited before each answer, as `listen --sync --queue` builds it. */
async function listenerWithQueue(url: string, queueName: string) {
  const queue = new SyncQueue({ url, queueName, enqueueTimeoutMs: 1000 });
  const recorder = createQueueRecorder(queue);
  const listener = await startListener({
    port: 0,
    verification: { secrets: [SECRET] },
    subscribers: [{ record: (delivery) => recorder.record({ valid: delivery.verdict.valid, body: delivery.body }) }],
  });
  return {
    url: listener.url,
    queue,
    async close() {
      await listener.close();
      await recorder.close();
    },
  };
}

describe('listen --sync --queue answers only once the jobs are in Redis', { skip }, () => {
  const names: string[] = [];
  after(async () => {
    for (const name of names) await dropQueueKeys(name);
  });

  it('a 200 means the job is already queued; a forged delivery is refused and queues nothing', async () => {
    const queueName = testQueueName('answer');
    names.push(queueName);
    const rig = await listenerWithQueue(REDIS_URL, queueName);
    try {
      assert.equal(await sendWebhook(rig.url, 'user-a', ['expense']), 200);
      // No waiting: the answer came after the add.
      const status = await queueStatus({ url: REDIS_URL, queueName });
      assert.equal(status.waiting, 1);
      const forged = await fetch(rig.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': 'not.a.jwt' },
        body: JSON.stringify({ userId: 'user-b', type: 'ENTITY_UPDATE', entities: ['invoice'] }),
      });
      assert.equal(forged.status, 400);
      assert.equal((await queueStatus({ url: REDIS_URL, queueName })).waiting, 1, 'nothing queued for a forgery');
    } finally {
      await rig.close();
    }
  });

  it('when Redis does not take the job, the sender gets a 503 (and retries), never a 2xx', async () => {
    const rig = await listenerWithQueue('redis://127.0.0.1:1', testQueueName('down'));
    try {
      assert.equal(await sendWebhook(rig.url, 'user-a', ['expense']), 503);
    } finally {
      await rig.close();
    }
  });
});
