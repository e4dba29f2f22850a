/**
 * Spec 2.1 and 2.2: the two webhook bodies, field by field, through src/webhook/bodies.ts
 * (`parseWebhookBody`, the one parser listen, send-sample and the webhook sync use), and the
 * spec's "others can be arranged" for events: a custom name is accepted and reported as unknown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { FileStore } from '../../src/store/file/file-store.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { tempDir } from '../helpers/cli.js';

const accepted: Array<{ name: string; body: unknown; unknownEntities?: string[]; unknownEvent?: boolean }> = [
  { name: '2.1 with one entity', body: { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] } },
  {
    name: '2.1 with several entities',
    body: { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice', 'userTaxSetup'] },
  },
  {
    name: '2.1 with an entity the catalogue does not know (reported, not refused)',
    body: { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense', 'spaceship'] },
    unknownEntities: ['spaceship'],
  },
  {
    name: '2.2 TRANSACTION_PULL_COMPLETED with integrationName',
    body: {
      userId: 'u1',
      type: 'LIFECYCLE_EVENT',
      event: 'TRANSACTION_PULL_COMPLETED',
      eventData: { integrationName: 'Plaid' },
    },
  },
  {
    name: '2.2 with an empty eventData object',
    body: { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: {} },
  },
  {
    name: '2.2 with a custom event the catalogue does not know (spec 6.2: others can be arranged)',
    body: { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'MY_CUSTOM_EVENT', eventData: { anything: 1 } },
    unknownEvent: true,
  },
];

const refused: Array<{ name: string; raw: string; field: RegExp }> = [
  { name: 'not JSON', raw: '{"userId":', field: /JSON/ },
  { name: 'a JSON array', raw: '[]', field: /object/ },
  { name: 'no userId', raw: JSON.stringify({ type: 'ENTITY_UPDATE', entities: ['expense'] }), field: /userId/ },
  {
    name: 'a numeric userId',
    raw: JSON.stringify({ userId: 7, type: 'ENTITY_UPDATE', entities: ['expense'] }),
    field: /userId/,
  },
  { name: 'no type', raw: JSON.stringify({ userId: 'u1', entities: ['expense'] }), field: /type/ },
  {
    name: 'a type outside the two of spec 6.1',
    raw: JSON.stringify({ userId: 'u1', type: 'ENTITY_DELETE', entities: ['expense'] }),
    field: /type/,
  },
  {
    name: 'a lower-case type (types are constants)',
    raw: JSON.stringify({ userId: 'u1', type: 'entity_update', entities: ['expense'] }),
    field: /type/,
  },
  {
    name: 'ENTITY_UPDATE without entities',
    raw: JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE' }),
    field: /entities/,
  },
  {
    name: 'entities as a string',
    raw: JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: 'expense' }),
    field: /entities/,
  },
  {
    name: 'entities with a number in it',
    raw: JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense', 3] }),
    field: /entities/,
  },
  {
    name: 'LIFECYCLE_EVENT without event',
    raw: JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', eventData: {} }),
    field: /event/,
  },
  {
    name: 'LIFECYCLE_EVENT without eventData',
    raw: JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED' }),
    field: /eventData/,
  },
  {
    name: 'eventData as a string',
    raw: JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: 'x' }),
    field: /eventData/,
  },
  {
    name: 'eventData as an array',
    raw: JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: [] }),
    field: /eventData/,
  },
  {
    name: 'eventData as null',
    raw: JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: null }),
    field: /eventData/,
  },
];

describe('spec 2.1/2.2: webhook bodies (parseWebhookBody)', () => {
  for (const { name, body, unknownEntities = [], unknownEvent = false } of accepted) {
    it(`accepts ${name}`, () => {
      const parsed = parseWebhookBody(JSON.stringify(body));
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
      assert.deepEqual(parsed.body, body);
      assert.deepEqual(parsed.unknownEntities, unknownEntities);
      assert.equal(parsed.unknownEvent, unknownEvent);
    });
  }

  for (const { name, raw, field } of refused) {
    it(`refuses ${name}, naming what is wrong`, () => {
      const parsed = parseWebhookBody(raw);
      assert.equal(parsed.ok, false);
      assert.ok(!parsed.ok);
      assert.match(parsed.reason, field);
    });
  }

  it('reads bytes as UTF-8 the same as a string', () => {
    const text = JSON.stringify({ userId: 'ü-1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    assert.deepEqual(parseWebhookBody(Buffer.from(text, 'utf8')), parseWebhookBody(text));
  });
});

describe('spec 6.2 "others can be arranged": a custom lifecycle event', () => {
  it('the webhook sync reports MY_CUSTOM_EVENT as unknown but valid, and a known event with its suggested use', () => {
    const events: WebhookSyncEvent[] = [];
    const sync = createWebhookSync({
      baseUrl: 'http://127.0.0.1:9/rest/v5',
      tokenFor: () => undefined,
      store: (() => {
        const dir = tempDir();
        return new FileStore({ outDir: dir, stateFile: join(dir, 'state.json') });
      })(),
      onEvent: (event) => events.push(event),
    });
    const send = (body: unknown) => sync.handleBody(Buffer.from(JSON.stringify(body)));
    send({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'MY_CUSTOM_EVENT', eventData: { note: 'arranged' } });
    send({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: { invoiceId: 1 } });
    assert.equal(events.length, 2);
    const [custom, known] = events;
    assert.ok(custom?.type === 'lifecycle' && known?.type === 'lifecycle');
    assert.deepEqual([custom.event, custom.known, custom.userId], ['MY_CUSTOM_EVENT', false, 'u1']);
    assert.match(custom.message, /not in the catalogue/);
    assert.deepEqual([known.event, known.known], ['INVOICE_VIEWED', true]);
    assert.equal(known.message, 'Tell the user a client opened an invoice');
  });
});
