import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTITIES } from '@ledgerhook/webhooks';
import { EVENTS } from '@ledgerhook/webhooks';
import { resolveEntityName, resolveEventName, resolveSampleType } from '../../src/catalogue/resolve.js';
import { suggest } from '../../packages/webhooks/src/catalogue/suggest.js';
import { resolveTarget } from '../../src/delivery/target.js';
import { buildSampleBody, DEFAULT_USER_ID } from '../../src/samples/sample-body.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';

describe('catalogue (spec 4.2 and 6.2)', () => {
  it('has 24 entities with distinct list paths (the names, the earlier list and pagination are pinned against the spec in test/spec/catalogue-tables.test.ts)', () => {
    assert.equal(ENTITIES.length, 24);
    assert.equal(new Set(ENTITIES.map((e) => e.path)).size, 24);
    assert.equal(ENTITIES.find((e) => e.name === 'personalExpenseCategory')?.path, '/expenses/personalCategories');
  });

  it('has the 25 lifecycle events with their suggested use', () => {
    assert.equal(EVENTS.length, 25);
    assert.equal(
      EVENTS.find((e) => e.name === 'INVOICE_VIEWED')?.suggestedUse,
      'Tell the user a client opened an invoice',
    );
    assert.equal(EVENTS.find((e) => e.name === 'TRANSACTION_PULL_COMPLETED')?.sampleEventData.integrationName, 'Plaid');
    const expenseAdded = EVENTS.find((e) => e.name === 'EXPENSE_ADDED')!.sampleEventData;
    for (const key of ['expenseId', 'bankAccountId', 'amount', 'date']) assert.ok(key in expenseAdded, key);
    for (const e of EVENTS.filter((e) => e.name.startsWith('INVOICE_') && e.name !== 'INVOICE_SETUP_COMPLETED')) {
      assert.ok('invoiceId' in e.sampleEventData && 'clientId' in e.sampleEventData, e.name);
    }
  });

  it('suggests the closest name on a typo, case-insensitively', () => {
    assert.equal(
      suggest(
        'EXPENSE_ADED',
        EVENTS.map((e) => e.name),
      ),
      'EXPENSE_ADDED',
    );
    assert.equal(
      suggest(
        'invoice_veiwed',
        EVENTS.map((e) => e.name),
      ),
      'INVOICE_VIEWED',
    );
    assert.equal(
      suggest(
        'xyz',
        EVENTS.map((e) => e.name),
      ),
      undefined,
    );
    assert.throws(() => resolveEventName('EXPENSE_ADED'), /did you mean EXPENSE_ADDED/);
    assert.throws(() => resolveEntityName('bankTransfers2'), /did you mean bankTransfer/);
  });

  it('resolves types, event names and entity names', () => {
    assert.deepEqual(resolveSampleType('entity_update'), { type: 'ENTITY_UPDATE' });
    assert.equal(resolveSampleType('invoice-viewed').event?.name, 'INVOICE_VIEWED');
    assert.equal(resolveEntityName('expenses').name, 'expense');
    assert.equal(resolveEntityName('Expense').name, 'expense');
  });
});

describe('resolveTarget', () => {
  for (const [input, expected] of [
    ['3000', 'http://localhost:3000/'],
    [':3000', 'http://localhost:3000/'],
    [':3000/hooks', 'http://localhost:3000/hooks'],
    ['localhost', 'http://localhost/'],
    ['localhost:3000', 'http://localhost:3000/'],
    ['127.0.0.1:8080/webhooks/in', 'http://127.0.0.1:8080/webhooks/in'],
    ['https://example.com/hook', 'https://example.com/hook'],
  ]) {
    it(`${input} -> ${expected}`, () => assert.equal(resolveTarget(input!).href, expected));
  }
  for (const input of ['ftp://x/', '', 'http://', ':99999', 'http://user:pw@host/']) {
    it(`refuses "${input}"`, () => assert.throws(() => resolveTarget(input), { code: 'ERR_USAGE' }));
  }
});

describe('buildSampleBody', () => {
  it('builds an ENTITY_UPDATE of spec 2.1', () => {
    const body = buildSampleBody({ type: 'ENTITY_UPDATE', entities: ['expense', 'invoices'] });
    assert.deepEqual(body, { userId: DEFAULT_USER_ID, type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
  });

  it('builds every LIFECYCLE_EVENT of spec 2.2 and parses back', () => {
    for (const event of EVENTS) {
      const body = buildSampleBody({ type: 'LIFECYCLE_EVENT', event: event.name, userId: 'u' });
      const parsed = parseWebhookBody(JSON.stringify(body));
      assert.ok(parsed.ok && !parsed.unknownEvent && parsed.body.type === 'LIFECYCLE_EVENT');
      assert.deepEqual(Object.keys(body).sort(), ['event', 'eventData', 'type', 'userId']);
    }
  });

  it('applies --set with dotted paths and JSON values, and never pollutes prototypes', () => {
    const body = buildSampleBody({
      type: 'LIFECYCLE_EVENT',
      event: 'EXPENSE_ADDED',
      set: ['eventData.amount=19.99', 'eventData.meta.source=csv', 'userId=u-9'],
    }) as Record<string, any>;
    assert.equal(body.eventData.amount, 19.99);
    assert.equal(body.eventData.meta.source, 'csv');
    assert.equal(body.userId, 'u-9');
    assert.throws(() => buildSampleBody({ type: 'ENTITY_UPDATE', set: ['__proto__.x=1'] }), { code: 'ERR_USAGE' });
    assert.throws(() => buildSampleBody({ type: 'ENTITY_UPDATE', set: ['novalue'] }), { code: 'ERR_USAGE' });
  });

  it('refuses mixed-up options', () => {
    // The library states the fact and its reason; the CLI adds the flag advice.
    assert.throws(() => buildSampleBody({ type: 'LIFECYCLE_EVENT' }), {
      message: /needs an event name/,
      details: { reason: 'missing_event' },
    });
    assert.throws(() => buildSampleBody({ type: 'ENTITY_UPDATE', entities: ['nope'] }), /unknown entity/);
    assert.throws(() => buildSampleBody({ type: 'ENTITY_UPDATE', entities: [] }), /at least one/);
  });
});
