import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { captureRecordFrom } from '../../src/capture/capture-from-delivery.js';
import { LedgerhookError } from '../../src/errors.js';
import { serve } from '../../src/http/serve.js';
import { RefusedBound } from '../../src/capture/refused-bound.js';
import { BodyBudget } from '../../src/http/body-budget.js';
import {
  handleDelivery,
  type ForwardEdge,
  type HandleDeliveryOptions,
  type HeaderRecord,
} from '../../src/api/listen.js';
import { bodySha256Base64 } from '../../src/webhook/body-hash.js';
import { signWebhook } from '../../src/webhook/sign.js';

const SECRET = 'whsec_unit_handle_delivery';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const BODY = Buffer.from(JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] }));

const options = (extra: Partial<HandleDeliveryOptions> = {}): HandleDeliveryOptions => ({
  secrets: [SECRET],
  headerName: 'Service-Verification',
  now: () => NOW,
  newId: () => 'dlv_test',
  ...extra,
});

const okEdge = (status: number): ForwardEdge => ({
  url: 'http://app.test/hooks',
  send: async () => ({ status, latencyMs: 1.234 }),
});
const downEdge: ForwardEdge = {
  url: 'http://app.test/hooks',
  send: async () => {
    throw new Error('nothing is listening on app.test:80');
  },
};

describe('handleDelivery (pure: no transport)', async () => {
  const token = await signWebhook(BODY, SECRET, { now: () => NOW });
  const forged = await signWebhook(BODY, 'not-the-secret', { now: () => NOW });
  const cases: Array<{
    name: string;
    method?: string;
    path?: string;
    headers: HeaderRecord;
    body?: Buffer;
    options?: Partial<HandleDeliveryOptions>;
    status: number;
    valid?: boolean | null;
    code?: string;
    forwardStatus?: number;
    forwardError?: boolean;
  }> = [
    { name: 'valid', headers: { 'service-verification': token }, status: 200, valid: true },
    { name: 'forged', headers: { 'service-verification': forged }, status: 400, valid: false, code: 'bad_signature' },
    {
      name: 'duplicate header (found by verifyWebhookRequest)',
      headers: { 'service-verification': [token, token] },
      status: 400,
      valid: false,
      code: 'malformed_token',
    },
    {
      name: 'the same header under two spellings is a duplicate too (the lower-case lookup defers to findHeader)',
      headers: { 'service-verification': token, 'Service-Verification': token },
      status: 400,
      valid: false,
      code: 'malformed_token',
    },
    {
      name: 'a header name in another case is found',
      headers: { 'SERVICE-verification': token },
      status: 200,
      valid: true,
    },
    { name: 'missing header', headers: {}, status: 400, valid: false, code: 'missing_token' },
    { name: 'no secret: not verified', headers: {}, options: { secrets: [] }, status: 200, valid: null },
    {
      name: 'forged with acceptInvalid',
      headers: { 'service-verification': forged },
      options: { acceptInvalid: true },
      status: 200,
      valid: false,
    },
    {
      name: 'forwarded: the app status is answered',
      headers: { 'service-verification': token },
      options: { forward: okEdge(202) },
      status: 202,
      valid: true,
      forwardStatus: 202,
    },
    {
      name: 'forward fails: 502',
      headers: { 'service-verification': token },
      options: { forward: downEdge },
      status: 502,
      valid: true,
      forwardError: true,
    },
    {
      name: 'forged is never forwarded',
      headers: { 'service-verification': forged },
      options: { forward: downEdge },
      status: 400,
      valid: false,
    },
    { name: 'wrong method', method: 'GET', headers: {}, status: 405 },
    { name: 'wrong path', path: '/other', headers: {}, options: { path: '/hooks' }, status: 404 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const result = await handleDelivery(
        { method: c.method ?? 'POST', path: c.path ?? '/', headers: c.headers, body: c.body ?? BODY },
        options(c.options),
      );
      assert.equal(result.status, c.status);
      if (c.valid === undefined) {
        assert.equal(result.delivery, undefined);
        assert.equal(result.refused?.status, c.status);
        return;
      }
      const delivery = result.delivery;
      assert.ok(delivery);
      assert.equal(delivery.status, c.status);
      assert.equal(delivery.verdict.valid, c.valid);
      if (c.code) assert.equal(delivery.verdict.code, c.code);
      assert.equal(delivery.receivedAt, new Date(NOW).toISOString());
      // A refused body is parsed only when its signature verified (issue 17: a forgery costs one hash).
      assert.equal(delivery.parsed.ok, c.valid !== false);
      assert.equal(delivery.body, c.body ?? BODY, 'the raw bytes, not a copy or a re-serialisation');
      assert.equal(delivery.forward?.status, c.forwardStatus);
      assert.equal(delivery.forward?.error !== undefined, Boolean(c.forwardError));
    });
  }

  it('passes allowFutureIat through and keeps the freshness warning', async () => {
    const future = await signWebhook(BODY, SECRET, { iat: NOW / 1000 + 900 });
    const result = await handleDelivery(
      { method: 'POST', path: '/', headers: { 'service-verification': future }, body: BODY },
      options({ allowFutureIat: true }),
    );
    assert.equal(result.status, 200);
    assert.match(result.delivery?.verdict.warnings[0] ?? '', /in the future/);
  });
});

describe('captureRecordFrom', async () => {
  const big = Buffer.from(
    JSON.stringify({ userId: 'x', type: 'ENTITY_UPDATE', entities: [], pad: 'p'.repeat(20_000) }),
  );
  const judge = async (body: Buffer, secret: string, refusedBodies?: boolean) => {
    const token = await signWebhook(body, secret, { now: () => NOW });
    const { delivery } = await handleDelivery(
      { method: 'POST', path: '/', headers: { 'service-verification': token }, body },
      options(),
    );
    assert.ok(delivery);
    return captureRecordFrom(delivery, { refusedBodies });
  };
  const table: Array<[string, Buffer, string, boolean | undefined, boolean]> = [
    ['a refused large body keeps its head, length and hash', big, 'wrong', undefined, true],
    ['a refused large body is whole with refusedBodies', big, 'wrong', true, false],
    ['a valid large body is always whole', big, SECRET, undefined, false],
    ['a refused small body is whole', BODY, 'wrong', undefined, false],
  ];
  for (const [name, body, secret, refusedBodies, truncated] of table) {
    it(name, async () => {
      const record = await judge(body, secret, refusedBodies);
      assert.equal(record.bodyBytes, body.length);
      assert.equal(record.bodyTruncated, truncated ? true : undefined);
      const kept = Buffer.from(record.body, 'base64');
      assert.deepEqual(kept, truncated ? body.subarray(0, 4096) : body);
      assert.equal(record.bodySha256, truncated ? bodySha256Base64(body) : undefined);
    });
  }
});

describe('RefusedBound', () => {
  it('takes a rate in bursts of ten seconds, refills with time, and stops at the total', () => {
    const bound = new RefusedBound({ perSecond: 2, maxBytes: 100 });
    const taken = Array.from({ length: 25 }, () => bound.takeRate(1_000)).filter(Boolean).length;
    assert.equal(taken, 20, 'a burst of ten seconds');
    assert.equal(bound.firstLimit, 'rate');
    assert.equal(bound.takeRate(1_400), false, 'not yet a whole token back');
    assert.equal(bound.takeRate(1_600), true, '0.6 s later: one more');
    assert.equal(bound.takeRate(1_600), false);
    assert.equal(bound.takeBytes(60), true);
    assert.equal(bound.takeBytes(60), false, 'past the total');
    assert.equal(bound.takeRate(60_000), true, 'under the total, the rate is back');
    assert.equal(bound.takeBytes(40), true);
    assert.equal(bound.takeRate(120_000), false, 'the total is spent: nothing more this run');
    assert.equal(bound.skipped, 9);
    assert.equal(new RefusedBound({ perSecond: 0 }).takeRate(0), false, '0 writes none');
  });
});

describe('BodyBudget and serve', () => {
  it('reserves until the limit, then refuses without taking anything', () => {
    const budget = new BodyBudget(100, 10);
    assert.equal(budget.reserve(60), true);
    assert.equal(budget.reserve(50), false);
    assert.equal(budget.usedBytes, 60);
    budget.release(60);
    assert.equal(budget.reserve(100), true);
  });

  it('reports a taken port as a neutral LedgerhookError with reason port_in_use (no CLI flag named)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await assert.rejects(
        serve(() => {}, { port }),
        (error: unknown) => {
          assert.ok(error instanceof LedgerhookError);
          assert.equal(error.details.reason, 'port_in_use');
          assert.equal(error.details.port, port);
          assert.doesNotMatch(error.message, /--/);
          return true;
        },
      );
    } finally {
      blocker.close();
    }
    const served = await serve((_req, res) => res.end('ok'), { port: 0 });
    assert.match(served.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await (await fetch(served.origin)).text(), 'ok');
    await served.close();
  });
});
