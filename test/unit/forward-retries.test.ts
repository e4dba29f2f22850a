import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import type { AttemptRecord } from '../../src/capture/attempt-record.js';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import { readPendingForwards } from '../../src/capture/pending-forwards.js';
import { routeStandings, standingsIn } from '../../src/capture/route-standings.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { ForwardRetrier } from '../../src/listen/forward-retries.js';
import { startListener } from '../../src/listen/listener.js';
import { readOwedForwards } from '../../src/listen/listener-routing.js';
import { handleDelivery } from '../../src/listen/handle-delivery.js';
import type { ForwardEdge } from '../../src/listen/route-forward.js';
import { parseRouteFlag } from '../../src/listen/routes.js';
import { tempDir } from '../helpers/cli.js';

/** An app that answers from a script: a status, or a thrown error (unreachable). */
function scriptedEdge(script: Array<number | Error>, url = 'http://localhost:1/'): ForwardEdge & { calls: number } {
  const edge = {
    url,
    calls: 0,
    async send() {
      const next = script[edge.calls] ?? 200;
      edge.calls += 1;
      if (next instanceof Error) throw next;
      return { status: next, latencyMs: 1 };
    },
  };
  return edge;
}

/** A clock that the sleep moves: tests never wait. */
function fakeTime() {
  let now = 1_000_000;
  const waits: number[] = [];
  return {
    now: () => now,
    waits,
    sleep: async (ms: number, signal: AbortSignal) => {
      if (signal.aborted) throw signal.reason;
      waits.push(ms);
      now += ms;
    },
  };
}

const forward = (edge: ForwardEdge, extra: Partial<Parameters<ForwardRetrier['add']>[0]> = {}) => ({
  deliveryId: 'dlv_1',
  body: Buffer.from('{}'),
  headers: {},
  route: 'default',
  edge,
  attempts: 0,
  dueAtMs: 0,
  ...extra,
});

describe('ForwardRetrier', () => {
  const table: Array<[name: string, script: Array<number | Error>, outcomes: string[], waits: number[]]> = [
    ['delivered at once', [200], ['delivered'], []],
    [
      'refused, 500, then 200',
      [new Error('connection refused'), 500, 200],
      ['retrying', 'retrying', 'delivered'],
      [5000, 30_000],
    ],
    ['a 4xx is final', [404], ['failed'], []],
    ['the schedule spent', [503, 503, 503], ['retrying', 'retrying', 'failed'], [5000, 30_000]],
  ];
  for (const [name, script, outcomes, waits] of table)
    it(name, async () => {
      const time = fakeTime();
      const attempts: AttemptRecord[] = [];
      const retrier = new ForwardRetrier({
        scheduleMs: [5000, 30_000],
        now: time.now,
        sleep: time.sleep,
        record: async (attempt) => {
          attempts.push(attempt);
        },
      });
      retrier.add(forward(scriptedEdge(script)));
      await retrier.idle();
      assert.equal(await retrier.close(), 0);
      assert.deepEqual(
        attempts.map((a) => a.outcome),
        outcomes,
      );
      assert.deepEqual(time.waits, waits);
      assert.deepEqual(
        attempts.map((a) => a.attempt),
        outcomes.map((_, index) => index + 1),
      );
      const retrying = attempts.find((a) => a.outcome === 'retrying');
      if (retrying) assert.equal(Date.parse(retrying.nextAt ?? ''), Date.parse(retrying.at) + 5000);
    });

  it('is bounded: hasRoom() is false at maxPending; close() stops the waits and counts what is left due', async () => {
    let now = 0;
    const retrier = new ForwardRetrier({
      scheduleMs: [60_000],
      maxPending: 2,
      now: () => now++,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    });
    const edge = scriptedEdge([500, 500]);
    retrier.add(forward(edge, { deliveryId: 'a' }));
    assert.equal(retrier.hasRoom(), true);
    retrier.add(forward(edge, { deliveryId: 'b' }));
    assert.equal(retrier.hasRoom(), false);
    assert.equal(await retrier.close(), 2);
  });

  it('a resumed forward waits until it is due, and counts its earlier attempts', async () => {
    const time = fakeTime();
    const attempts: AttemptRecord[] = [];
    const retrier = new ForwardRetrier({
      scheduleMs: [1, 2, 3],
      now: time.now,
      sleep: time.sleep,
      onAttempt: (a) => attempts.push(a),
    });
    retrier.add(forward(scriptedEdge([200]), { attempts: 2, dueAtMs: time.now() + 700 }));
    await retrier.idle();
    assert.deepEqual(time.waits, [700]);
    assert.deepEqual([attempts[0]?.attempt, attempts[0]?.outcome], [3, 'delivered']);
  });
});

describe('ForwardRetrier with resign (--retry-resign)', () => {
  it('sends the first attempt as it came and every later one with the headers resign gives, marked resigned', async () => {
    const time = fakeTime();
    const seen: Array<Record<string, string>> = [];
    const edge = {
      url: 'http://localhost:1/',
      calls: 0,
      async send(_body: Buffer, headers: Record<string, string>) {
        seen.push(headers);
        edge.calls += 1;
        return { status: edge.calls < 3 ? 500 : 200, latencyMs: 1 };
      },
    };
    const attempts: AttemptRecord[] = [];
    let signed = 0;
    const retrier = new ForwardRetrier({
      scheduleMs: [10, 10],
      ...time,
      onAttempt: (attempt) => attempts.push(attempt),
      resign: async (_body, headers) => ({ ...headers, 'service-verification': `fresh-${++signed}` }),
    });
    retrier.add(forward(edge, { headers: { 'service-verification': 'original' } }));
    await retrier.idle();
    assert.deepEqual(
      seen.map((headers) => headers['service-verification']),
      ['original', 'fresh-1', 'fresh-2'],
    );
    assert.deepEqual(
      attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.resigned ?? false]),
      [
        [1, 'retrying', false],
        [2, 'retrying', true],
        [3, 'delivered', true],
      ],
    );
  });

  it('re-signs the first attempt of a resumed forward (its token is as old as the delivery)', async () => {
    const time = fakeTime();
    const edge = scriptedEdge([200]);
    let resigned = 0;
    const retrier = new ForwardRetrier({
      scheduleMs: [10],
      ...time,
      resign: async (_body, headers) => {
        resigned += 1;
        return headers;
      },
    });
    retrier.add(forward(edge, { attempts: 1 }));
    await retrier.idle();
    assert.equal(resigned, 1);
  });
});

describe('readPendingForwards', () => {
  it('owes each route whose last line is retrying, or that has no attempt yet; not the delivered or failed', async () => {
    const file = join(tempDir(), 'capture.jsonl');
    const delivery = (id: string, routes: string[], valid: boolean | null = true) =>
      JSON.stringify({
        id,
        receivedAt: '2026-11-25T10:00:00.000Z',
        method: 'POST',
        path: '/',
        headers: { 'service-verification': 'x' },
        headerName: 'service-verification',
        body: Buffer.from(`{"id":"${id}"}`).toString('base64'),
        bodyBytes: 10,
        verdict: { valid, status: 202 },
        forwarding: routes.map((route) => ({ route, url: `http://localhost:3000/${route}` })),
      });
    const attempt = (deliveryId: string, route: string, n: number, outcome: string, nextAt?: string) =>
      JSON.stringify({
        kind: 'attempt',
        deliveryId,
        route,
        url: `http://localhost:3000/${route}`,
        attempt: n,
        at: '2026-11-25T10:00:01.000Z',
        outcome,
        ...(nextAt ? { nextAt } : {}),
      });
    writeFileSync(
      file,
      [
        delivery('d1', ['a', 'b']),
        attempt('d1', 'a', 1, 'delivered'),
        attempt('d1', 'b', 1, 'retrying', '2026-11-25T10:05:00.000Z'),
        delivery('d2', ['a']),
        attempt('d2', 'a', 1, 'failed'),
        delivery('d3', ['a']),
        // Kept by --accept-invalid: never owed a redelivery.
        delivery('d4', ['a'], false),
        '{"torn',
      ].join('\n'),
    );
    const owed = await readPendingForwards(file);
    assert.deepEqual(
      owed.map((p) => [p.deliveryId, p.route, p.attempts, p.dueAtMs, p.body.toString()]),
      [
        ['d1', 'b', 1, Date.parse('2026-11-25T10:05:00.000Z'), '{"id":"d1"}'],
        ['d3', 'a', 0, 0, '{"id":"d3"}'],
      ],
    );
    assert.deepEqual(await readPendingForwards(join(tempDir(), 'missing.jsonl')), []);
  });
});

describe('handleDelivery with routes', () => {
  const request = (body: object) => ({
    method: 'POST',
    path: '/',
    headers: { host: 'x', 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
  });
  const base = { secrets: [], headerName: 'Service-Verification', now: () => 0, newId: () => 'dlv_x' };
  const invoice = { userId: 'u', type: 'LIFECYCLE_EVENT', event: 'INVOICE_PAID', eventData: {} };

  it('several routes at once: 200 only when all answered 2xx, each answer in the delivery', async () => {
    const routes = ['*=:1', 'INVOICE_*=:2'].map(parseRouteFlag);
    const ok = scriptedEdge([200, 200]);
    const failing = scriptedEdge([500]);
    const [all, invoices] = routes;
    assert.ok(all && invoices);
    const handled = await handleDelivery(request(invoice), {
      ...base,
      routing: {
        routes: [
          { ...all, edge: ok },
          { ...invoices, edge: failing },
        ],
      },
    });
    assert.equal(handled.status, 502);
    assert.deepEqual(
      handled.delivery?.forwards?.map((f) => [f.route, f.status]),
      [
        ['*', 200],
        ['INVOICE_*', 500],
      ],
    );
  });

  it('in the background mode nothing is forwarded before the answer: 202 and the routes due', async () => {
    const route = parseRouteFlag('INVOICE_*=:2');
    const edge = scriptedEdge([200]);
    const handled = await handleDelivery(request(invoice), {
      ...base,
      routing: { routes: [{ ...route, edge }], background: true },
    });
    assert.equal(handled.status, 202);
    assert.equal(edge.calls, 0);
    assert.deepEqual(handled.delivery?.forwarding, [{ route: 'INVOICE_*', url: 'http://localhost:2/' }]);
  });

  it('in the background mode a forgery kept by acceptInvalid is owed nothing: answered, never forwarded', async () => {
    const route = parseRouteFlag('INVOICE_*=:2');
    const edge = scriptedEdge([200]);
    const handled = await handleDelivery(
      { ...request(invoice), headers: { ...request(invoice).headers, 'service-verification': 'forged' } },
      {
        ...base,
        secrets: ['whsec_route'],
        acceptInvalid: true,
        routing: { routes: [{ ...route, edge }], background: true },
      },
    );
    assert.equal(handled.delivery?.verdict.valid, false);
    assert.equal(handled.status, 200);
    assert.equal(edge.calls, 0);
    assert.equal(handled.delivery?.forwarding, undefined);
  });
});

describe('routeStandings', () => {
  const base = {
    id: 'd',
    receivedAt: '2026-11-25T10:00:00.000Z',
    method: 'POST',
    path: '/',
    headers: {},
    headerName: 'service-verification',
    body: '',
    bodyBytes: 0,
    verdict: { valid: true, status: 200 },
  };
  const attempt = (route: string, n: number, outcome: AttemptRecord['outcome'], status?: number): AttemptRecord => ({
    kind: 'attempt',
    deliveryId: 'd',
    route,
    url: `http://localhost:1/${route}`,
    attempt: n,
    at: '2026-11-25T10:00:01.000Z',
    outcome,
    ...(status === undefined ? {} : { status }),
  });
  const table: Array<[name: string, record: CaptureRecord, standings: string[], failed: boolean]> = [
    ['no forward', base, [], false],
    ['one forward answered 200', { ...base, forward: { url: 'u', status: 200 } }, ['default delivered 1'], false],
    ['one forward unreachable', { ...base, forward: { url: 'u', error: 'refused' } }, ['default failed 1'], true],
    [
      'routes answered before the sender',
      {
        ...base,
        forwards: [
          { route: 'a', url: 'u', status: 204 },
          { route: 'b', url: 'v', status: 500 },
        ],
      },
      ['a delivered 1', 'b failed 1'],
      true,
    ],
    [
      'retried: delivered, still retrying, not attempted yet',
      {
        ...base,
        forwarding: ['a', 'b', 'c'].map((route) => ({ route, url: `http://localhost:1/${route}` })),
        attempts: [attempt('a', 1, 'retrying', 500), attempt('a', 2, 'delivered', 200), attempt('b', 1, 'retrying')],
      },
      ['a delivered 2', 'b retrying 1', 'c due 0'],
      false,
    ],
    [
      'retried until the schedule was spent',
      {
        ...base,
        forwarding: [{ route: 'a', url: 'u' }],
        attempts: [attempt('a', 1, 'retrying'), attempt('a', 2, 'failed')],
      },
      ['a failed 2'],
      true,
    ],
  ];
  for (const [name, record, standings, failed] of table)
    it(name, () => {
      assert.deepEqual(
        routeStandings(record).map((s) => `${s.route} ${s.outcome} ${s.attempts}`),
        standings,
      );
      assert.equal(standingsIn(record, 'failed').length > 0, failed);
    });
});

describe('listen --retry: the pending limit is exact', () => {
  it('answers 202 to exactly maxPending deliveries sent at once to a route that is down, 503 to the rest', async () => {
    const down = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const capture = join(tempDir(), 'capture.jsonl');
    const secret = 'whsec_exact_limit';
    // The retry waits never end while the test runs (they stop when the listener closes).
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const listener = await startListener({
      port: 0,
      verification: { secrets: [secret] },
      capture: { path: capture },
      forward: { routes: [parseRouteFlag(`:${down}`)] },
      retry: { scheduleMs: [60_000], maxPending: 5, sleep },
    });
    try {
      const body = JSON.stringify({ userId: 'u', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const delivery = await buildDelivery({ body, secret });
      // Twelve connections opened first (a GET is answered 405 and the connection kept): the twelve
      // deliveries then arrive together, as a busy sender's do, and are judged side by side.
      const dispatcher = new Agent({ connections: 12 });
      const send = (method: string) =>
        request(listener.url, {
          method,
          dispatcher,
          headers: delivery.headers,
          body: method === 'POST' ? Buffer.from(delivery.body) : null,
        }).then(async (response) => {
          await response.body.dump();
          return response.statusCode;
        });
      await Promise.all(Array.from({ length: 12 }, () => send('GET')));
      const statuses = await Promise.all(Array.from({ length: 12 }, () => send('POST')));
      await dispatcher.close();
      assert.deepEqual(
        [statuses.filter((s) => s === 202).length, statuses.filter((s) => s === 503).length],
        [5, 7],
        String(statuses),
      );
    } finally {
      await listener.close();
    }
    assert.equal(listener.forwardsPending, 5);
    assert.equal((await readPendingForwards(capture)).length, 5, 'the file owes exactly the 202 ones');
  });
});

describe('readOwedForwards', () => {
  it("resumes only an owed forward whose original token verifies with the listener's secrets now, whatever the file says", async () => {
    const secret = 'whsec_owed';
    const line = async (id: string, signWith: string) => {
      const body = JSON.stringify({ userId: id, type: 'ENTITY_UPDATE', entities: ['expense'] });
      const { headers } = await buildDelivery({ body, secret: signWith });
      return JSON.stringify({
        id,
        receivedAt: '2020-01-01T00:00:00.000Z',
        method: 'POST',
        path: '/',
        headers: { 'service-verification': headers['service-verification'] },
        headerName: 'service-verification',
        body: Buffer.from(body).toString('base64'),
        bodyBytes: Buffer.byteLength(body),
        // Both claim to have verified: the file's verdict is never read for this.
        verdict: { valid: true, status: 202 },
        forwarding: [{ route: 'default', url: 'http://localhost:3000/' }],
      });
    };
    const file = join(tempDir(), 'capture.jsonl');
    // A line that is not JSON and a torn last one: counted (listen says them once, at start), never resumed.
    writeFileSync(
      file,
      `${await line('genuine', secret)}\nnot json\n${await line('forged', 'not-the-secret')}\n{"id":"torn","bo`,
    );
    const owed = await readOwedForwards(file, { secrets: [secret] });
    assert.equal(owed.skipped, 2);
    assert.deepEqual(
      owed.forwards.map((forward) => forward.deliveryId),
      ['genuine'],
    );
    assert.equal(owed.unverified, 1);
    // A listener without a secret verifies nothing, at receipt or here (and re-signs nothing).
    assert.equal((await readOwedForwards(file, { secrets: [] })).forwards.length, 2);
  });
});
