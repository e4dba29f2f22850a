import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { setTimeout as tick } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { captureRecordFrom } from '../../src/capture/capture-from-delivery.js';
import { LedgerhookError } from '../../src/errors.js';
import { serve } from '../../src/http/serve.js';
import { RefusedBound } from '../../src/capture/refused-bound.js';
import { BodyBudget } from '@ledgerhook/webhooks/node';
import { DeliveryEvents } from '../../src/delivery/delivery-events.js';
import { nodeDeliveryHandler } from '../../src/listen/node-adapter.js';
import { noTelemetry } from '../../src/telemetry/telemetry.js';
import {
  handleDelivery,
  type ForwardEdge,
  type HandleDeliveryOptions,
  type HeaderRecord,
} from '../../src/api/listen.js';
import { bodySha256Base64 } from '@ledgerhook/webhooks';
import { signWebhook } from '@ledgerhook/webhooks';

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
      // A refused body is parsed only when its signature verified (a forgery costs one hash).
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

  it('lets waiting requests in first come first served, as room frees; one that gives up or times out takes nothing', async () => {
    const budget = new BodyBudget(100, 10);
    assert.equal(budget.reserve(80), true);
    const first = budget.wait(50, 10_000);
    const second = budget.wait(20, 10_000);
    const late = budget.wait(30, 10_000);
    assert.equal(budget.reserve(10), false, 'no one jumps the queue, even what would fit');
    late.cancel();
    assert.equal(await late.granted, false);
    budget.release(80);
    assert.deepEqual(await Promise.all([first.granted, second.granted]), [true, true]);
    assert.equal(budget.usedBytes, 70);
    const timedOut = budget.wait(50, 1);
    assert.equal(await timedOut.granted, false);
    assert.equal(budget.waiting, 0);
    budget.release(70);
    assert.equal(budget.usedBytes, 0, 'nothing taken by those that left');
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

describe('the listener under large bodies', () => {
  it('lets a large body that does not fit the memory budget now wait its turn, unread, instead of answering 503', async () => {
    // Room for one 190 KB body at a time beyond each request's free 64 KiB; the handler answers what it read.
    const budget = new BodyBudget(200_000, 64 * 1024);
    const events = new DeliveryEvents();
    const adapter = nodeDeliveryHandler({
      preflight: () => undefined,
      handle: async (request) => ({ status: 200, body: { bytes: request.body.length } }),
      events,
      budget,
      bodyWaitMs: 10_000,
      maxBodyBytes: 200_000,
      retryAfterSeconds: 1,
      telemetry: noTelemetry,
    });
    const served = await serve(adapter.handler, { port: 0 });
    const body = 'p'.repeat(190_000);
    const head = `POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n`;
    const open = () =>
      new Promise<Socket>((resolve) => {
        const socket = connect(served.port, '127.0.0.1', () => resolve(socket));
      });
    const answer = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (/\r\n\r\n.*\}/s.test(text)) resolve(`${text.split(' ')[1]} ${text.slice(text.indexOf('{'))}`);
        });
      });
    const sockets = await Promise.all([open(), open(), open()]);
    try {
      const [first, ...others] = sockets as [Socket, Socket, Socket];
      const answers = sockets.map(answer);
      // The first holds the room while its body is half sent; the other two arrive whole and wait, unread.
      first.write(head + body.slice(0, 100_000));
      await until(() => budget.usedBytes > 0, 'the first took the room');
      for (const socket of others) socket.write(head + body);
      await until(() => budget.waiting === 2, 'the other two wait for room');
      first.end(body.slice(100_000));
      assert.deepEqual(
        await Promise.all(answers),
        Array.from({ length: 3 }, () => '200 {"bytes":190000}'),
      );
      assert.equal(budget.usedBytes, 0, 'all room given back');
    } finally {
      for (const socket of sockets) socket.destroy();
      await served.close();
    }
  });
});

/** Polls until `condition` holds, with a deadline (never a fixed sleep). */
async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await tick(5);
  }
}
