import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LedgerhookError } from '../src/errors.js';
import { type WebhookHandlerError, Webhooks, type WebhooksOptions } from '@ledgerhook/webhooks';
import { signWebhook } from '../src/webhook/sign.js';

const SECRET = 'whsec_unit_receiver';
const NOW_MS = Date.UTC(2026, 10, 22, 9, 0, 0);
const NOW_S = NOW_MS / 1000;

async function delivery(body: unknown, options: { secret?: string; iat?: number; raw?: string } = {}) {
  const text = options.raw ?? JSON.stringify(body);
  const token = await signWebhook(text, options.secret ?? SECRET, { iat: options.iat ?? NOW_S - 1 });
  return { headers: { 'Service-Verification': token }, body: Buffer.from(text) };
}

/** A Webhooks that records which handler saw what. */
function recorder(options: Partial<WebhooksOptions> = {}) {
  const seen: Array<[string, unknown]> = [];
  const errors: WebhookHandlerError[] = [];
  const webhooks = new Webhooks({ secret: SECRET, now: () => NOW_MS, ...options })
    .on('ENTITY_UPDATE', (event) => void seen.push(['ENTITY_UPDATE', event]))
    .on('TRANSACTION_PULL_COMPLETED', (event) => void seen.push(['TRANSACTION_PULL_COMPLETED', event]))
    .on('INVOICE_VIEWED', (event) => void seen.push(['INVOICE_VIEWED', event]))
    .on('LIFECYCLE_EVENT', (event) => void seen.push(['LIFECYCLE_EVENT', event.event]))
    .onAny((d) => void seen.push(['*', d.body.type]))
    .onError((error) => void errors.push(error));
  return { webhooks, seen, errors, names: () => seen.map(([name]) => name).sort() };
}

describe('Webhooks: routing authentic deliveries', () => {
  const table: Array<{ title: string; body: unknown; handlers: string[]; check?: (seen: unknown[]) => void }> = [
    {
      title: 'ENTITY_UPDATE: catalogue names typed, unknown names kept in unknownEntities',
      body: { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense', 'spaceship'] },
      handlers: ['*', 'ENTITY_UPDATE'],
      check: (seen) =>
        assert.deepEqual(seen[0], {
          userId: 'u1',
          type: 'ENTITY_UPDATE',
          entities: ['expense'],
          unknownEntities: ['spaceship'],
        }),
    },
    {
      title: 'a known event: its own handler and LIFECYCLE_EVENT',
      body: { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: { invoiceId: 1 } },
      handlers: ['*', 'INVOICE_VIEWED', 'LIFECYCLE_EVENT'],
    },
    {
      title: 'TRANSACTION_PULL_COMPLETED with integrationName',
      body: {
        userId: 'u1',
        type: 'LIFECYCLE_EVENT',
        event: 'TRANSACTION_PULL_COMPLETED',
        eventData: { integrationName: 'Plaid' },
      },
      handlers: ['*', 'LIFECYCLE_EVENT', 'TRANSACTION_PULL_COMPLETED'],
    },
    {
      title: 'TRANSACTION_PULL_COMPLETED without the typed field reaches LIFECYCLE_EVENT only',
      body: { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'TRANSACTION_PULL_COMPLETED', eventData: {} },
      handlers: ['*', 'LIFECYCLE_EVENT'],
    },
    {
      title: 'an event outside the catalogue is not dropped',
      body: { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'CUSTOM_ARRANGED_EVENT', eventData: {} },
      handlers: ['*', 'LIFECYCLE_EVENT'],
    },
    {
      title: 'a type outside the spec reaches onAny',
      body: { userId: 'u1', type: 'SOMETHING_NEW', anything: 1 },
      handlers: ['*'],
    },
  ];
  for (const { title, body, handlers, check } of table) {
    it(title, async () => {
      const { webhooks, seen, names, errors } = recorder();
      const answer = await webhooks.verifyAndReceive(await delivery(body));
      assert.deepEqual(answer, {
        status: 200,
        body: { received: true },
        headers: { 'content-type': 'application/json' },
      });
      assert.deepEqual(names(), handlers);
      assert.deepEqual(errors, []);
      check?.(seen.map(([, value]) => value));
    });
  }
});

describe('Webhooks: answers', () => {
  const entityUpdate = { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] };
  const refusals: Array<{ title: string; make: () => Promise<{ headers: object; body: Buffer }>; code: string }> = [
    { title: 'wrong secret', make: () => delivery(entityUpdate, { secret: 'other' }), code: 'bad_signature' },
    { title: 'expired', make: () => delivery(entityUpdate, { iat: NOW_S - 300 }), code: 'expired' },
    { title: 'iat in the future', make: () => delivery(entityUpdate, { iat: NOW_S + 3600 }), code: 'issued_in_future' },
    { title: 'no header', make: async () => ({ headers: {}, body: Buffer.from('{}') }), code: 'missing_token' },
    {
      title: 'body changed after signing',
      make: async () => ({
        ...(await delivery(entityUpdate)),
        body: Buffer.from(JSON.stringify(entityUpdate, null, 1)),
      }),
      code: 'body_mismatch',
    },
  ];
  for (const { title, make, code } of refusals) {
    it(`400 {"error":"${code}"} and no handler for ${title}`, async () => {
      const { webhooks, seen } = recorder();
      const answer = await webhooks.verifyAndReceive((await make()) as never);
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, { error: code });
      assert.deepEqual(seen, []);
    });
  }

  it('accepts a future iat only with allowFutureIat', async () => {
    const { webhooks } = recorder({ allowFutureIat: true });
    const answer = await webhooks.verifyAndReceive(await delivery(entityUpdate, { iat: NOW_S + 3600 }));
    assert.equal(answer.status, 200);
  });

  it('verifies with any of several secrets and names the one that did', async () => {
    const labels: Array<string | undefined> = [];
    const webhooks = new Webhooks({
      secrets: [
        { secret: 'sandbox-secret', label: 'sandbox' },
        { secret: SECRET, label: 'production' },
      ],
      now: () => NOW_MS,
    }).onAny((d) => void labels.push(d.secretLabel));
    assert.equal((await webhooks.verifyAndReceive(await delivery(entityUpdate))).status, 200);
    assert.deepEqual(labels, ['production']);
  });

  it('500 handler_failed when a handler throws; the error goes to onError, its message never to the sender', async () => {
    const { webhooks, errors, seen } = recorder();
    webhooks.on('ENTITY_UPDATE', () => {
      throw new Error('database password is hunter2');
    });
    const answer = await webhooks.verifyAndReceive(await delivery(entityUpdate));
    assert.deepEqual(answer.body, { error: 'handler_failed' });
    assert.equal(answer.status, 500);
    assert.doesNotMatch(JSON.stringify(answer), /hunter2/);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.reason, 'handler_failed');
    assert.equal(errors[0]?.handlerName, 'ENTITY_UPDATE');
    assert.match(String((errors[0]?.cause as Error | undefined)?.message), /hunter2/);
    assert.ok(
      seen.some(([name]) => name === 'ENTITY_UPDATE'),
      'the other handlers still ran',
    );
  });

  it('waits for asynchronous handlers before answering', async () => {
    let finished = false;
    const webhooks = new Webhooks({ secret: SECRET, now: () => NOW_MS }).on('ENTITY_UPDATE', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      finished = true;
    });
    await webhooks.verifyAndReceive(await delivery(entityUpdate));
    assert.equal(finished, true);
  });

  it('400 invalid_body for an authentic body that is not spec JSON, reported to onError', async () => {
    const { webhooks, errors, seen } = recorder();
    const answer = await webhooks.verifyAndReceive(await delivery(undefined, { raw: 'not json' }));
    assert.deepEqual([answer.status, answer.body], [400, { error: 'invalid_body' }]);
    assert.deepEqual(
      errors.map((e) => e.reason),
      ['invalid_body'],
    );
    assert.equal(Buffer.from(errors[0]?.rawBody ?? []).toString(), 'not json', 'the authentic bytes are not dropped');
    assert.deepEqual(seen, []);
  });

  it('checks bodies with the one validator: a lone-surrogate userId is refused (it would share a user), an unknown type reaches onAny', async () => {
    const { webhooks, errors, seen } = recorder();
    const lone = await webhooks.verifyAndReceive(
      await delivery(undefined, { raw: '{"userId":"\\ud800","type":"ENTITY_UPDATE","entities":["expense"]}' }),
    );
    assert.deepEqual([lone.status, lone.body], [400, { error: 'invalid_body' }]);
    assert.match(errors[0]?.message ?? '', /lone surrogate/);
    const unknown = await webhooks.verifyAndReceive(
      await delivery(undefined, { raw: '{"userId":"user_1","type":"ACCOUNT_CLOSED","reason":"x"}' }),
    );
    assert.equal(unknown.status, 200);
    assert.deepEqual(seen, [['*', 'ACCOUNT_CLOSED']], 'only onAny sees a type the spec does not list');
  });

  it('refuses to verify a parsed object instead of raw bytes', async () => {
    const { webhooks } = recorder();
    const signed = await delivery(entityUpdate);
    await assert.rejects(
      webhooks.verifyAndReceive({ headers: signed.headers, body: entityUpdate as never }),
      (error: LedgerhookError) => error.details.reason === 'body_not_raw',
    );
  });
});

describe('Webhooks: options', () => {
  it('needs a secret, at construction', () => {
    assert.throws(
      () => new Webhooks({ secret: undefined }),
      (error: LedgerhookError) => error instanceof LedgerhookError && error.details.reason === 'missing_webhook_secret',
    );
    assert.throws(() => new Webhooks({ secret: 'x', toleranceSeconds: -1 }), /toleranceSeconds/);
  });

  it('refuses a misspelt handler name at run time, suggesting the right one', () => {
    const webhooks = new Webhooks({ secret: SECRET });
    assert.throws(() => webhooks.on('INVOICE_VIEWD' as never, () => {}), /did you mean INVOICE_VIEWED/);
  });

  it('refuses a handler that is not a function at registration, not on the first delivery', () => {
    const webhooks = new Webhooks({ secret: SECRET });
    const notAFunction = 'handleIt' as never;
    for (const register of [
      () => webhooks.on('ENTITY_UPDATE', notAFunction),
      () => webhooks.onAny(notAFunction),
      () => webhooks.onError(notAFunction),
    ]) {
      assert.throws(register, (error: LedgerhookError) => error.details.reason === 'handler_not_function');
    }
  });
});
