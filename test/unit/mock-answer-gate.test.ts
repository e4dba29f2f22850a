/**
 * The mock's answer gate, in process: a driver watches every list answer and holds one back, so that a
 * change made meanwhile is one the held answer predates (check-consumer's race cases), and updateIds
 * changes exactly the items it names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListAnswer } from '../../src/mock/answer-gate.js';
import { MockService } from '../../src/mock/mock-service.js';
import type { ListEnvelope } from '../../src/mock/mock-types.js';

const get = (service: MockService, url: string, headers: Record<string, string> = {}) =>
  service.handle({ method: 'GET', url, headers: { authorization: `Bearer ${service.token}`, ...headers } });

describe('AnswerGate', () => {
  it('holds the next matching answer until released: its data and lastUpdatedDate predate a change made meanwhile', async () => {
    const service = new MockService({ items: 5 });
    const [first] = service.dataset('/expenses').data;
    const seen: ListAnswer[] = [];
    const unwatch = service.answers.watch((answer) => seen.push(answer));
    const hold = service.answers.holdNext((answer) => answer.entity === 'expense');
    let sent = false;
    const answering = get(service, '/rest/v5/expenses?type=PENDING&a=1').then((response) => {
      sent = true;
      return response;
    });
    const held = await hold.held;
    assert.deepEqual(
      [held?.path, held?.filter, held?.firstPage, held?.since],
      [
        '/expenses',
        [
          ['a', '1'],
          ['type', 'PENDING'],
        ],
        true,
        undefined,
      ],
    );
    // Other answers pass while one is held.
    assert.equal((await get(service, '/rest/v5/clients')).status, 200);
    const change = service.mutate({ path: '/expenses', updateIds: [first?.id ?? 0] });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent, false, 'still held');
    hold.release();
    const response = await answering;
    const envelope = response.body as ListEnvelope;
    assert.ok(Date.parse(envelope.lastUpdatedDate) < Date.parse(change.at), 'the answer predates the change');
    assert.deepEqual(
      seen.map((answer) => answer.entity),
      ['expense', 'client'],
    );
    unwatch();
    // Nothing watching, nothing held: an answer passes at once.
    assert.equal((await get(service, '/rest/v5/expenses', { lastupdateddate: envelope.lastUpdatedDate })).status, 200);
    assert.equal(seen.length, 2);
  });

  it('a hold released before any answer came resolves with nothing; releaseAll lets every held answer go', async () => {
    const service = new MockService({ items: 5 });
    const idle = service.answers.holdNext(() => true);
    idle.release();
    assert.equal(await idle.held, undefined);
    const hold = service.answers.holdNext(() => true);
    const answering = get(service, '/rest/v5/expenses');
    await hold.held;
    service.answers.releaseAll();
    assert.equal((await answering).status, 200);
    // Errors and refusals are not list answers: nothing is held for them.
    const never = service.answers.holdNext(() => true);
    assert.equal((await get(service, '/rest/v5/expenses', { limit: 'x' })).status, 400);
    never.release();
    assert.equal(await never.held, undefined);
  });
});

describe('mutate updateIds', () => {
  it('updates exactly the items named (those that exist), once each, besides the random ones', () => {
    const service = new MockService({ items: 10 });
    const [a, b] = service.dataset('/expenses').data.map((item) => item.id);
    const result = service.mutate({ path: '/expenses', updateIds: [a ?? 0, a ?? 0, b ?? 0, 999] });
    assert.deepEqual(result.updated, [a, b]);
    assert.equal(service.mutate({ path: '/expenses', update: 2, updateIds: [b ?? 0] }).updated.length, 3);
  });
});
