import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ENTITIES } from '@ledgerhook/webhooks';
import { EVENTS } from '@ledgerhook/webhooks';
import { resolveSampleType } from '../../src/catalogue/resolve.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody } from '../../src/samples/sample-body.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

const SECRET = 'whsec_send_sample_test_secret';
const ENTITY_NAMES = new Set(ENTITIES.map((e) => e.name));
const EVENT_NAMES = new Set(EVENTS.map((e) => e.name));

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/**
 * Four runs spawn the built CLI, one per flow: a delivery accepted (exit 0), one rejected by the receiver
 * (exit 1, one error line), a typo in the type (exit 2 with the suggestion) and nothing listening (exit 3).
 * The other runs are flag variants of the same command (output formats, --event-data/--set, --body,
 * --count, input checks, misbehaving targets) and run in-process (runInProcess: same definitions, command
 * module and exit-code mapping), where each spawn cost ~0.45 s of CPU (node start, undici, jose).
 */
const SPAWNED = new Set(['a typo in the type']);

/** Checks a body against the spec's tables 2.1 and 2.2: types, required fields, catalogue names. */
function assertSpecBody(raw: Buffer): void {
  const body = JSON.parse(raw.toString());
  assert.equal(typeof body.userId, 'string');
  if (body.type === 'ENTITY_UPDATE') {
    assert.deepEqual(Object.keys(body).sort(), ['entities', 'type', 'userId']);
    assert.ok(Array.isArray(body.entities) && body.entities.length > 0);
    for (const name of body.entities) assert.ok(ENTITY_NAMES.has(name), name);
  } else {
    assert.equal(body.type, 'LIFECYCLE_EVENT');
    assert.deepEqual(Object.keys(body).sort(), ['event', 'eventData', 'type', 'userId']);
    assert.ok(EVENT_NAMES.has(body.event), body.event);
    assert.equal(typeof body.eventData, 'object');
  }
}

describe('ledgerhook send-sample', () => {
  let receiver: Awaited<ReturnType<typeof startSpecReceiver>>;
  before(async () => {
    receiver = await startSpecReceiver({ secret: SECRET });
  });
  after(() => receiver.close());

  it('sends every type and event, each accepted by an independent receiver and shaped as the spec says', async () => {
    // Every TYPE goes through the code send-sample runs (resolve the type, build the sample body, sign, POST),
    // in-process: one spawn per type proved nothing more. The command runs below for two of them, one spawned.
    const types = ['ENTITY_UPDATE', ...EVENTS.map((e) => e.name.toLowerCase())];
    const before = receiver.received.length;
    for (const type of types) {
      const { type: webhookType, event } = resolveSampleType(type);
      const body = Buffer.from(JSON.stringify(buildSampleBody({ type: webhookType, event: event?.name })), 'utf8');
      const delivery = await buildDelivery({ body, secret: SECRET });
      const response = await postWebhook({
        url: new URL(receiver.url),
        body: delivery.body,
        headers: delivery.headers,
      });
      assert.equal(response.status, 200, type);
    }
    const spawned = await Promise.all([
      runCli(['send-sample', 'ENTITY_UPDATE', '--to', receiver.url, '--secret', SECRET]),
      runInProcess(['send-sample', 'invoice_paid', '--to', receiver.url, '--secret', SECRET]),
    ]);
    for (const result of spawned) assert.equal(result.code, 0, result.stdout + result.stderr);
    const got = receiver.received.slice(before);
    assert.equal(got.length, types.length + spawned.length);
    for (const delivery of got) {
      assert.equal(delivery.status, 200, delivery.reason);
      assert.equal(delivery.headers['content-type'], 'application/json');
      assertSpecBody(delivery.body);
    }
    const spawnedBodies = got.slice(-2).map((d) => JSON.parse(d.body.toString()));
    assert.deepEqual(spawnedBodies.map((b) => b.type).sort(), ['ENTITY_UPDATE', 'LIFECYCLE_EVENT']);
    assert.ok(spawnedBodies.some((b) => b.event === 'INVOICE_PAID'));
  });

  it('prints the resolved URL, status, latency and an excerpt, or one JSON document', async () => {
    const human = await runInProcess([
      'send-sample',
      'LIFECYCLE_EVENT',
      '--event',
      'EXPENSE_ADDED',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
    ]);
    assert.match(human.stdout, /POST http:\/\/127\.0\.0\.1:\d+\/webhooks/);
    assert.match(human.stdout, /200 in [\d.]+ ms: \{"ok":true\}/);
    const json = await runInProcess([
      'send-sample',
      'ENTITY_UPDATE',
      '--entities',
      'invoice,client',
      '--user',
      'u-7',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
      '--json',
    ]);
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.status, 200);
    assert.equal(JSON.parse(parsed.body).userId, 'u-7');
    assert.deepEqual(JSON.parse(receiver.received.at(-1)!.body.toString()).entities, ['invoice', 'client']);
  });

  it('overrides eventData with --event-data and --set', async () => {
    const result = await runInProcess([
      'send-sample',
      'TRANSACTION_PULL_COMPLETED',
      '--event-data',
      '{"integrationName":"Yodlee"}',
      '--set',
      'eventData.accounts=3',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(receiver.received.at(-1)!.body.toString()).eventData, {
      integrationName: 'Yodlee',
      accounts: 3,
    });
  });

  it('sends a file byte for byte with --body, with a configured header name', async () => {
    const custom = await startSpecReceiver({ secret: SECRET, headerName: 'Acme-Verification' });
    const file = join(tempDir(), 'body.json');
    const bytes = '{ "userId": "u1", "type": "ENTITY_UPDATE", "entities": ["expense"] }\n';
    writeFileSync(file, bytes);
    const result = await runInProcess([
      'send-sample',
      '--body',
      file,
      '--to',
      custom.url,
      '--secret',
      SECRET,
      '--header-name',
      'Acme-Verification',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(custom.received[0]?.body.toString(), bytes);
    await custom.close();
  });

  it('exits 1 when the receiver rejects an unsigned or backdated delivery', async () => {
    const unsigned = await runCli(['send-sample', 'ENTITY_UPDATE', '--unsigned', '--to', receiver.url]);
    assert.equal(unsigned.code, 1);
    assert.match(unsigned.stdout, /400/);
    assertOneLineError(unsigned);
    const old = await runInProcess([
      'send-sample',
      'ENTITY_UPDATE',
      '--iat',
      '1700000000',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
    ]);
    assert.equal(old.code, 1);
    assert.equal(receiver.received.at(-1)!.reason, 'expired');
  });

  it('load-tests with --count and --concurrency and summarises', async () => {
    const before = receiver.received.length;
    const result = await runInProcess([
      'send-sample',
      'ENTITY_UPDATE',
      '--count',
      '300',
      '--concurrency',
      '20',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.sent, 300);
    assert.deepEqual(summary.statusCounts, { 200: 300 });
    assert.ok(summary.latencyMs.p50 <= summary.latencyMs.p95 && summary.latencyMs.p95 <= summary.latencyMs.max);
    assert.equal(receiver.received.length - before, 300);
  });

  for (const [name, args] of [
    ['a typo in the type', ['send-sample', 'EXPENSE_ADED', '--to', '3000', '--secret', SECRET]],
    [
      'an unknown entity',
      ['send-sample', 'ENTITY_UPDATE', '--entities', 'expense,unicorn', '--to', '3000', '--secret', SECRET],
    ],
    ['LIFECYCLE_EVENT without --event', ['send-sample', 'LIFECYCLE_EVENT', '--to', '3000', '--secret', SECRET]],
    ['an ftp target', ['send-sample', 'ENTITY_UPDATE', '--to', 'ftp://x/', '--secret', SECRET]],
    [
      '--event-data that is not JSON',
      ['send-sample', 'INVOICE_PAID', '--event-data', '{', '--to', '3000', '--secret', SECRET],
    ],
    ['no secret', ['send-sample', 'ENTITY_UPDATE', '--to', '3000', '--env', 'sandbox']],
    ['--body with a type', ['send-sample', 'ENTITY_UPDATE', '--body', 'x.json', '--to', '3000', '--secret', SECRET]],
  ] as const) {
    it(`exits 2 with one line for ${name}`, async () => {
      const result = await (SPAWNED.has(name) ? runCli : runInProcess)([...args]);
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      // The typo case also proves the suggestion (one spawn instead of two for the same command line).
      if (name === 'a typo in the type') assert.match(result.stderr, /did you mean EXPENSE_ADDED\?/);
    });
  }
});

describe('send-sample against misbehaving targets', () => {
  it('says plainly that nothing is listening (exit 3)', async () => {
    const { server, url } = await listen(() => {});
    const port = new URL(url).port;
    await new Promise((resolve) => server.close(resolve));
    const result = await runCli(['send-sample', 'ENTITY_UPDATE', '--to', port, '--secret', SECRET]);
    assert.equal(result.code, 3);
    assert.match(result.stderr, new RegExp(`nothing is listening on localhost:${port}`));
    assertOneLineError(result);
  });

  it('gives up after --timeout (exit 3)', async () => {
    const { server, url } = await listen(() => {
      /* never answers */
    });
    const result = await runInProcess([
      'send-sample',
      'ENTITY_UPDATE',
      '--to',
      url,
      '--secret',
      SECRET,
      '--timeout',
      '0.5',
    ]);
    assert.equal(result.code, 3);
    assert.match(result.stderr, /did not answer within 500 ms/);
    assertOneLineError(result);
    server.closeAllConnections();
    server.close();
  });

  it('reports a 500, a redirect and a huge answer as not accepted (exit 1), without a stack trace', async () => {
    const { server, url } = await listen((req, res) => {
      req.resume();
      if (req.url === '/500') res.writeHead(500).end('boom');
      else if (req.url === '/redirect') res.writeHead(302, { location: '/elsewhere' }).end();
      else {
        res.writeHead(413);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (sent < 50 * 1024 * 1024) res.once('drain', pump);
          else res.end();
        };
        res.on('error', () => {});
        pump();
      }
    });
    const failed = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', `${url}500`, '--secret', SECRET]);
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /500 in .* boom/);
    const redirected = await runInProcess([
      'send-sample',
      'ENTITY_UPDATE',
      '--to',
      `${url}redirect`,
      '--secret',
      SECRET,
    ]);
    assert.equal(redirected.code, 1);
    assert.match(redirected.stdout, /302 .*redirect to \/elsewhere/);
    const huge = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', `${url}huge`, '--secret', SECRET]);
    assert.equal(huge.code, 1);
    assert.match(huge.stdout, /answer cut off/);
    for (const result of [failed, redirected, huge]) assertOneLineError(result);
    server.closeAllConnections();
    server.close();
  });
});
