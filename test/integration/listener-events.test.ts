import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startListener, type ListenerEvent, type ReceivedDelivery } from '../../src/api/listen.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_listener_events';

describe('startListener: one typed event API for every subscriber', () => {
  it('records before answering, tells every subscriber, and passes on only what is not forged', async () => {
    const capture = join(tempDir(), 'events.jsonl');
    const events: ListenerEvent[] = [];
    const accepted: ReceivedDelivery[] = [];
    const recordedBeforeAnswer: number[] = [];
    const listener = await startListener({
      port: 0,
      verification: { secrets: [SECRET], acceptInvalid: true },
      capture: { path: capture },
      // A subscriber's record() runs before the answer: the capture line must already be there.
      subscribers: [
        {
          record: async () => {
            recordedBeforeAnswer.push(readFileSync(capture, 'utf8').split('\n').filter(Boolean).length);
          },
        },
      ],
      onEvent: (event) => events.push(event),
      onAccepted: (delivery) => accepted.push(delivery),
    });
    try {
      const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      for (const secret of [SECRET, 'forged']) {
        const response = await fetch(listener.url, {
          method: 'POST',
          body,
          headers: { 'service-verification': await signWebhook(body, secret) },
        });
        assert.equal(response.status, 200, 'acceptInvalid answers 200 to the forged one too');
      }
      assert.equal((await fetch(listener.url)).status, 405);
    } finally {
      await listener.close();
    }
    assert.deepEqual(recordedBeforeAnswer, [1, 2], 'the capture line is written before the next recorder runs');
    const deliveries = events.filter((event) => event.type === 'delivery');
    assert.deepEqual(
      deliveries.map((event) => [event.delivery.verdict.valid, event.accepted]),
      [
        [true, true],
        [false, false],
      ],
    );
    assert.equal(accepted.length, 1, 'the forged delivery is never passed on to sync');
    assert.equal(accepted[0]?.parsed.ok, true);
    assert.equal(events.filter((event) => event.type === 'refused').length, 1);
    assert.equal(listener.captured, 2);
    assert.deepEqual(
      [listener.stats.deliveries, listener.stats.valid, listener.stats.invalid, listener.stats.refused],
      [2, 1, 1, 1],
    );
  });
});
