import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startListener } from '../../src/listen/listener.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { attachTrace } from '../../src/telemetry/telemetry.js';
import { createWebhookSync } from '../../src/webhook-sync/webhook-sync.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';
import type { ReceivedDelivery } from '../../src/delivery/received-delivery.js';
import { tempDir } from '../helpers/cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';
import { inMemoryTelemetry, parentOf, points } from '../helpers/in-memory-otel.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { startSpecListServer } from '../helpers/spec-list-server.js';

const SECRET = 'whsec_telemetry_test';
const TOKEN = 'access-token-never-in-a-span';

function signed(body: string): Record<string, string> {
  const token = makeToken({
    claims: { iat: Math.floor(Date.now() / 1000), request_body_sha256: bodyHash(body) },
    secret: SECRET,
  });
  return { 'content-type': 'application/json', 'service-verification': token };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const only = (spans: ReadableSpan[], name: string) => {
  const found = named(spans, name);
  assert.equal(found.length, 1, `one ${name} span, got ${found.length}`);
  return found[0] as ReadableSpan;
};

/** Every attribute value of every span and every event, for "nothing secret in it" checks. */
const recordedText = (spans: ReadableSpan[]) =>
  JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events.map((event) => event.attributes)]));

describe('telemetry: one trace per delivery (listen --sync as a library)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('receipt → verify, capture; the sync run it caused → page fetches → commit; metrics by verdict', async () => {
    const otel = await inMemoryTelemetry();
    const api = await startPagedListServer(25);
    const dir = tempDir();
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
    const sync = createWebhookSync({
      baseUrl: api.baseUrl,
      tokenFor: () => TOKEN,
      store,
      read: { limit: 10 },
      telemetry: otel.telemetry,
    });
    const listener = await startListener({
      port: 0,
      verification: { secrets: [SECRET] },
      capture: { path: join(dir, 'captures.jsonl') },
      telemetry: otel.telemetry,
      onAccepted: (delivery) => sync.handle(delivery),
    });
    cleanups.push(async () => {
      await listener.close();
      await api.close();
      await store.close();
      await otel.close();
    });

    const body = JSON.stringify({ userId: 'user-1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const answer = await fetch(listener.url, { method: 'POST', headers: signed(body), body });
    assert.equal(answer.status, 200);
    const forged = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-verification': 'not.a.jwt' },
      body,
    });
    assert.equal(forged.status, 400);
    await listener.close();
    await sync.idle();

    const spans = otel.spans();
    const deliveries = named(spans, 'ledgerhook.delivery');
    assert.equal(deliveries.length, 2, 'one trace per delivery');
    const run = only(spans, 'ledgerhook.sync');
    const delivery = deliveries.find((span) => span.spanContext().spanId === parentOf(run));
    assert.ok(delivery, 'the sync run is a child of the delivery that caused it');
    assert.equal(parentOf(delivery), undefined, 'the delivery span is the root of its trace');
    const traceId = delivery.spanContext().traceId;
    const inTrace = spans.filter((span) => span.spanContext().traceId === traceId);
    const childrenOf = (parent: ReadableSpan) =>
      inTrace.filter((span) => parentOf(span) === parent.spanContext().spanId).map((span) => span.name);
    assert.deepEqual(childrenOf(delivery).sort(), ['ledgerhook.capture', 'ledgerhook.sync', 'ledgerhook.verify']);
    assert.deepEqual(childrenOf(run).sort(), [
      'ledgerhook.store.commit',
      'ledgerhook.sync.page',
      'ledgerhook.sync.page',
      'ledgerhook.sync.page',
    ]);
    assert.equal(only(inTrace, 'ledgerhook.verify').attributes['ledgerhook.verdict'], 'valid');
    assert.equal(delivery.attributes['http.response.status_code'], 200);
    assert.equal(run.attributes['ledgerhook.sync.pages'], 3);
    assert.equal(run.attributes['ledgerhook.sync.mode'], 'full');
    assert.equal(run.attributes['ledgerhook.user_id'], 'user-1');
    // The forged delivery's trace: receipt and verify (refused: invalid), captured, nothing synced.
    const refused = deliveries.find((span) => span !== delivery) as ReadableSpan;
    assert.equal(refused.attributes['http.response.status_code'], 400);
    const text = recordedText(spans);
    for (const secret of [SECRET, TOKEN, 'not.a.jwt', 'ENTITY_UPDATE'])
      assert.ok(!text.includes(secret), `${secret} is not in a span`);

    const metrics = await otel.metrics();
    const verdicts = points(metrics.get('ledgerhook.deliveries')).map(([attrs, value]) => [
      attrs['ledgerhook.verdict'],
      value,
    ]);
    assert.deepEqual(verdicts.sort(), [
      ['invalid', 1],
      ['valid', 1],
    ]);
    assert.deepEqual(
      points(metrics.get('ledgerhook.sync.pages')).map(([, value]) => value),
      [3],
    );
    const durations = points(metrics.get('ledgerhook.sync.duration'));
    assert.equal(durations.length, 1);
    const [outcome, histogram] = durations[0] ?? [{}, {}];
    assert.equal((histogram as { count?: number }).count, 1);
    assert.equal(outcome['ledgerhook.sync.outcome'], 'ok');
  });

  it('deliveries coalesced into one run: the run is a child of the first and linked to the others', async () => {
    const otel = await inMemoryTelemetry();
    const api = await startPagedListServer(3);
    const dir = tempDir();
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
    const sync = createWebhookSync({ baseUrl: api.baseUrl, tokenFor: () => TOKEN, store, telemetry: otel.telemetry });
    cleanups.push(async () => {
      await api.close();
      await store.close();
      await otel.close();
    });
    const raw = Buffer.from(JSON.stringify({ userId: 'user-1', type: 'ENTITY_UPDATE', entities: ['expense'] }));
    const receipts = ['d1', 'd2', 'd3'].map((id) => {
      const span = otel.telemetry.span(`delivery ${id}`);
      const delivery = { id, receivedAtMs: Date.now(), parsed: parseWebhookBody(raw) } as ReceivedDelivery;
      attachTrace(delivery, span);
      return { delivery, span };
    });
    // The first starts a run at once; the second waits for it, and the third joins the second.
    for (const { delivery } of receipts) sync.handle(delivery);
    await sync.idle();
    for (const { span } of receipts) span.end();

    const spans = otel.spans();
    const runs = named(spans, 'ledgerhook.sync');
    assert.equal(runs.length, 2, 'one run, then one follow-up for the burst');
    const id = (name: string) => only(spans, name).spanContext().spanId;
    const byParent = new Map(runs.map((run) => [parentOf(run), run]));
    assert.ok(byParent.get(id('delivery d1')), 'a run under the first delivery');
    const followUp = byParent.get(id('delivery d2'));
    assert.ok(followUp, 'the follow-up run under the first delivery it answers');
    assert.deepEqual(
      followUp.links.map((link) => link.context.spanId),
      [id('delivery d3')],
      'and linked to the delivery coalesced into it',
    );
  });

  it('a 429 waited out is counted; a failed run is a failed span with a bounded message', async () => {
    const otel = await inMemoryTelemetry();
    let calls = 0;
    const api = await startSpecListServer({ items: 5, token: TOKEN, faultFor: (n) => (n === 1 ? '429' : undefined) });
    const dir = tempDir();
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
    cleanups.push(async () => {
      await api.close();
      await store.close();
      await otel.close();
    });
    const options = {
      baseUrl: api.baseUrl,
      token: TOKEN,
      path: '/things',
      store,
      telemetry: otel.telemetry,
      sleep: async () => {
        calls += 1;
      },
    };
    await syncDataset(options);
    assert.equal(calls, 1, 'one wait (its Retry-After), injected');
    const metrics = await otel.metrics();
    assert.deepEqual(
      points(metrics.get('ledgerhook.sync.rate_limit.waits')).map(([, value]) => value),
      [1],
    );
    await assert.rejects(syncDataset({ ...options, path: '/nothing-here' }));
    const failed = named(otel.spans(), 'ledgerhook.sync').find((span) => span.status.code === 2);
    assert.ok(failed, 'the failed run is a span with status ERROR');
    assert.ok((failed.status.message ?? '').length <= 256);
    assert.ok(!recordedText(otel.spans()).includes(TOKEN));
  });
});
