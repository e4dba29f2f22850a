import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { resolveSampleType } from '../../src/catalogue/resolve.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody } from '../../src/samples/sample-body.js';
import { verifyWebhook } from '@ledgerhook/webhooks';
import { assertOneLineError, startCli, tempDir } from '../helpers/cli.js';
import { type RunningInProcess, runInProcess, startInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_listen_routes_test';

/** A local app on a port: records what it receives, answers with `status(n)` for its n-th request (1-based). */
async function startApp(status: (n: number) => number = () => 200, port = 0) {
  const received: Array<{ body: Buffer; event: string; token: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString('utf8')) as { type: string; event?: string; entities?: string[] };
      const token = String(req.headers['service-verification'] ?? '');
      received.push({ body, event: parsed.event ?? `${parsed.type}:${parsed.entities?.join(',')}`, token });
      res.writeHead(status(received.length), { 'content-type': 'application/json' }).end('{"app":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return { received, port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A port nothing listens on (yet): connections are refused. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A listener with these flags: in-process (the same command module, stopped as Ctrl-C stops it), or
 * the built bin for the test that proves the user's path end to end.
 */
async function startListen(args: string[], { spawned = false } = {}) {
  const command = ['listen', '--port', '0', '--json', '--secret', SECRET, ...args];
  const listen: Omit<RunningInProcess, 'stop'> & { stop(): Promise<{ code: number | null }> } = spawned
    ? startCli(command)
    : startInProcess(command);
  const started = await listen.waitFor((line) => line?.kind === 'listening');
  return { listen, url: started.url as string, started };
}

/** What send-sample sends, in-process; resolves with the status and the body sent. */
async function send(url: string, type: string, entities?: string[]) {
  const { type: webhookType, event } = resolveSampleType(type);
  const sample = buildSampleBody({ type: webhookType, event: event?.name, entities });
  const body = Buffer.from(JSON.stringify(sample), 'utf8');
  const delivery = await buildDelivery({ body, secret: SECRET });
  const response = await postWebhook({ url: new URL(url), body: delivery.body, headers: delivery.headers });
  return { status: response.status, body, token: String(delivery.headers['service-verification'] ?? '') };
}

async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await tick(20);
  }
}

const isAttempt = (outcome: string) => (line: { kind?: string; outcome?: string }) =>
  line?.kind === 'attempt' && line.outcome === outcome;

describe('listen routes and retries (end to end)', () => {
  it('two local apps receive only their routed events, byte-exact; a catch-all takes the rest', async () => {
    const invoices = await startApp();
    const expenses = await startApp();
    const rest = await startApp();
    const { listen, url, started } = await startListen(
      [
        '--forward-to',
        `INVOICE_*=:${invoices.port}/invoices`,
        '--forward-to',
        `ENTITY_UPDATE:expense=http://127.0.0.1:${expenses.port}/`,
        '--forward-to',
        String(rest.port),
      ],
      { spawned: true },
    );
    try {
      assert.deepEqual(
        started.routes.map((route: { name: string }) => route.name),
        ['INVOICE_*', 'ENTITY_UPDATE:expense', 'default'],
      );
      const viewed = await send(url, 'INVOICE_VIEWED');
      const paid = await send(url, 'INVOICE_PAID');
      const expense = await send(url, 'ENTITY_UPDATE', ['expense', 'invoice']);
      const added = await send(url, 'EXPENSE_ADDED');
      const other = await send(url, 'ENTITY_UPDATE', ['client']);
      for (const sent of [viewed, paid, expense, added, other]) assert.equal(sent.status, 200);
      assert.deepEqual(
        invoices.received.map((r) => r.event),
        ['INVOICE_VIEWED', 'INVOICE_PAID'],
      );
      assert.deepEqual(
        expenses.received.map((r) => r.event),
        ['ENTITY_UPDATE:expense,invoice'],
      );
      assert.deepEqual(
        rest.received.map((r) => r.event),
        ['EXPENSE_ADDED', 'ENTITY_UPDATE:client'],
      );
      assert.ok(invoices.received[0]?.body.equals(viewed.body), 'forwarded byte-exact');
      const line = await listen.waitFor((l) => l?.kind === 'delivery' && l.event === 'INVOICE_PAID');
      assert.deepEqual(
        line.forwards.map((f: { route: string; status: number }) => [f.route, f.status]),
        [['INVOICE_*', 200]],
      );
    } finally {
      await listen.stop();
      await Promise.all([invoices.close(), expenses.close(), rest.close()]);
    }
  });

  it('several routes: 2xx only when every app answered 2xx; --events leaves the rest unforwarded and unprinted', async () => {
    const ok = await startApp();
    const failing = await startApp(() => 500);
    const { listen, url } = await startListen([
      '--forward-to',
      `*=:${ok.port}`,
      '--forward-to',
      `LIFECYCLE_EVENT=:${failing.port}`,
      '--events',
      'INVOICE_*,ENTITY_UPDATE',
    ]);
    try {
      assert.equal((await send(url, 'ENTITY_UPDATE')).status, 200);
      assert.equal((await send(url, 'INVOICE_VIEWED')).status, 502);
      assert.equal((await send(url, 'EXPENSE_ADDED')).status, 200);
      assert.deepEqual(
        ok.received.map((r) => r.event.split(':')[0]),
        ['ENTITY_UPDATE', 'INVOICE_VIEWED'],
      );
      assert.deepEqual(
        failing.received.map((r) => r.event),
        ['INVOICE_VIEWED'],
      );
    } finally {
      const stopped = await listen.stop();
      // In-process a stop ends the command with 0; the bin's 130 for Ctrl-C is contract-slips.test.ts's.
      assert.equal(stopped.code, 0);
      await Promise.all([ok.close(), failing.close()]);
    }
    const printed = listen.lines.map((l) => JSON.parse(l)).filter((l) => l.kind === 'delivery');
    assert.deepEqual(
      printed.map((l) => l.event ?? l.type),
      ['ENTITY_UPDATE', 'INVOICE_VIEWED'],
    );
    const summary = listen.lines.map((l) => JSON.parse(l)).find((l) => l.kind === 'summary');
    assert.equal(summary.deliveries, 3, 'counted, though not printed');
  });

  it('an app down for the first two attempts (refused, then 500) gets the delivery on the third; captures show lists three attempts', async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const port = await freePort();
    const { listen, url } = await startListen(['--forward-to', `:${port}`, '--retry', '1s,50ms', '--capture', capture]);
    let app: Awaited<ReturnType<typeof startApp>> | undefined;
    try {
      const sent = await send(url, 'INVOICE_PAID');
      assert.equal(sent.status, 202, 'answered once recorded: listen owns the redelivery');
      await listen.waitFor(isAttempt('retrying'));
      // The app comes up during the first wait: it answers 500 once, then 200.
      app = await startApp((n) => (n === 1 ? 500 : 200), port);
      const delivered = await listen.waitFor(isAttempt('delivered'));
      assert.equal(delivered.attempt, 3);
      assert.equal(app.received.length, 2);
      assert.ok(app.received[1]?.body.equals(sent.body), 'the same bytes, each attempt');
    } finally {
      assert.equal((await listen.stop()).code, 0);
      await app?.close();
    }
    const shown = await runInProcess(['captures', 'show', capture, '--json', '--secret', SECRET]);
    assert.equal(shown.code, 0, shown.stderr);
    const detail = JSON.parse(shown.stdout);
    assert.deepEqual(
      detail.attempts.map((a: { attempt: number; outcome: string; status?: number; error?: string }) => [
        a.attempt,
        a.outcome,
        a.status ?? 'error',
      ]),
      [
        [1, 'retrying', 'error'],
        [2, 'retrying', 500],
        [3, 'delivered', 200],
      ],
    );
    assert.ok(detail.attempts[0].error.length > 0);
    assert.deepEqual(detail.routes, [
      { route: 'default', url: `http://localhost:${port}/`, attempts: 3, outcome: 'delivered', status: 200 },
    ]);
    const text = await runInProcess(['captures', 'show', capture, '--secret', SECRET]);
    assert.match(text.stdout, /default #3 → 200 in [\d.]+ ms \(delivered\)/);
    // The inspector's detail of the same capture lists them too.
    const inspect = startCli(['inspect', capture, '--port', '0', '--json']);
    try {
      const { inspectorUrl } = await inspect.waitFor((line) => line?.kind === 'inspecting');
      const response = await fetch(new URL(`api/deliveries/${encodeURIComponent(detail.id)}`, inspectorUrl));
      const shownInInspector = (await response.json()) as { attempts: unknown[]; routes: Array<{ outcome: string }> };
      assert.equal(shownInInspector.attempts.length, 3);
      assert.equal(shownInInspector.routes[0]?.outcome, 'delivered');
    } finally {
      await inspect.stop();
    }
  });

  it('retries still due when listen stops are said on exit and resumed by the next listen with the same capture', async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const port = await freePort();
    // --retry-resign: the resumed attempt carries a fresh token (the original may be older than 5 minutes).
    const args = ['--forward-to', `ENTITY_UPDATE=:${port}`, '--retry', '300ms', '--retry-resign', '--capture', capture];
    const first = startCli(['listen', '--port', '0', '--secret', SECRET, ...args]);
    const url = (await first.waitForStderr(/listening on (\S+),/))[1] ?? '';
    const sent = await send(url, 'ENTITY_UPDATE');
    await until(() => first.lines.some((line) => /#1 .*retry at/.test(line)), 'the first attempt failed');
    assert.equal((await first.stop()).code, 130);
    assert.match(first.stderr(), /1 forward still due .*--retry 300ms/);
    // A run whose route points elsewhere is not sent the old deliveries; they stay owed in the file.
    const elsewhere = await startListen(['--forward-to', `ENTITY_UPDATE=:${port + 1}`, ...args.slice(2)]);
    const moved = await elsewhere.listen.waitFor((line) => line?.kind === 'forwards-resumed');
    assert.deepEqual([moved.resumed, moved.waiting, moved.dropped], [0, 0, 1]);
    await elsewhere.listen.stop();
    const app = await startApp(() => 200, port);
    const second = await startListen(args);
    try {
      const resumed = await second.listen.waitFor((line) => line?.kind === 'forwards-resumed');
      assert.deepEqual([resumed.resumed, resumed.waiting, resumed.dropped], [1, 0, 0]);
      assert.equal(JSON.parse(second.listen.lines[0] ?? '{}').kind, 'listening', 'the first line stays listening');
      const delivered = await second.listen.waitFor(isAttempt('delivered'));
      assert.equal(delivered.attempt, 2);
      assert.ok(app.received[0]?.body.equals(sent.body));
      // A fresh token (signed in the same second it equals the original: HS256 is deterministic).
      const token = app.received[0]?.token ?? '';
      const fresh = await verifyWebhook({ body: sent.body, token, secrets: SECRET });
      const original = await verifyWebhook({ body: sent.body, token: sent.token, secrets: SECRET });
      assert.ok(fresh.ok && original.ok && fresh.claims.iat >= original.claims.iat);
      assert.equal(delivered.resigned, true);
    } finally {
      await second.listen.stop();
      await app.close();
    }
    const third = await startListen(args);
    const summary = await third.listen.stop();
    assert.equal(summary.code, 0);
    assert.ok(!third.listen.lines.some((line) => line.includes('forwards-resumed')), 'nothing owed any more');
  });

  it('forwards still owed to a route that moved are listed by captures list --owed and sent by replay --owed --to', async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const was = await freePort();
    const first = await startListen(['--forward-to', `:${was}`, '--retry', '10m', '--capture', capture]);
    const sent = [];
    for (const type of ['INVOICE_PAID', 'INVOICE_VIEWED', 'ENTITY_UPDATE']) sent.push(await send(first.url, type));
    const retrying = () => first.listen.lines.filter((line) => line.includes('"outcome":"retrying"')).length;
    await until(() => retrying() === 3, 'each first attempt failed');
    assert.deepEqual(
      sent.map((s) => s.status),
      [202, 202, 202],
    );
    await first.listen.stop();

    // The app moved: this run does not send the old deliveries, and says how they can be.
    const app = await startApp();
    const args = ['--forward-to', `:${app.port}`, '--retry', '10m', '--capture', capture];
    const moved = startCli(['listen', '--port', '0', '--secret', SECRET, ...args]);
    await moved.waitForStderr(
      /3 forwards to routes this run does not have .* not sent; `ledgerhook captures list \S+ --owed` lists them, `ledgerhook replay \S+ --owed --to URL` sends them/,
    );
    await moved.stop();
    assert.equal(app.received.length, 0);

    const listed = await runInProcess(['captures', 'list', capture, '--owed', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const owed = JSON.parse(listed.stdout).owed as Array<{ route: string; url: string; attempts: number }>;
    assert.deepEqual(
      owed.map((o) => [o.route, o.url, o.attempts]),
      Array.from({ length: 3 }, () => ['default', `http://localhost:${was}/`, 1]),
    );
    const failed = await runInProcess(['replay', capture, '--failed', '--to', `:${app.port}`, '--secret', SECRET]);
    assert.equal(failed.stdout.trim(), `no delivery in ${capture} failed at its last attempt`);

    const replayed = await runInProcess([
      'replay',
      capture,
      '--owed',
      '--to',
      `:${app.port}`,
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(replayed.code, 0, replayed.stderr);
    const report = JSON.parse(replayed.stdout);
    assert.deepEqual([report.sent, report.succeeded, report.recorded], [3, 3, 3]);
    assert.deepEqual(
      app.received.map((r) => r.body.toString('utf8')).sort(),
      sent.map((s) => s.body.toString('utf8')).sort(),
    );
    for (const received of app.received)
      assert.ok((await verifyWebhook({ body: received.body, token: received.token, secrets: SECRET })).ok);

    // Owed no more: not listed, not resumed by the next listen, not sent twice.
    const after = await runInProcess(['captures', 'list', capture, '--owed']);
    assert.equal(after.stdout.trim(), `no forward is still owed in ${capture}`);
    const again = await startListen(args);
    await again.listen.stop();
    assert.ok(!again.listen.lines.some((line) => line.includes('forwards-resumed')), 'nothing owed any more');
    assert.equal(app.received.length, 3);
    await app.close();
  });

  it("replay --failed re-sends what failed for good, only to --to (the file's URL is shown, never used)", async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const app = await startApp((n) => (n === 1 ? 400 : 200));
    const { listen, url } = await startListen([
      '--forward-to',
      `:${app.port}/hooks`,
      '--retry',
      '50ms',
      '--capture',
      capture,
    ]);
    try {
      await send(url, 'INVOICE_VIEWED');
      await listen.waitFor(isAttempt('failed'));
      await send(url, 'INVOICE_PAID');
      await listen.waitFor(isAttempt('delivered'));
    } finally {
      await listen.stop();
    }
    try {
      const untargeted = await runInProcess(['replay', capture, '--failed', '--secret', SECRET]);
      assert.equal(untargeted.code, 2);
      assertOneLineError(untargeted);
      assert.match(untargeted.stderr, new RegExp(`needs --to TARGET.*http://localhost:${app.port}/hooks`));
      const replayed = await runInProcess([
        'replay',
        capture,
        '--failed',
        '--to',
        `:${app.port}/hooks`,
        '--json',
        '--secret',
        SECRET,
      ]);
      assert.equal(replayed.code, 0, replayed.stderr);
      const result = JSON.parse(replayed.stdout);
      assert.equal(result.url, `http://localhost:${app.port}/hooks`);
      assert.equal(result.results.length, 1);
      assert.deepEqual(
        app.received.map((r) => r.event),
        ['INVOICE_VIEWED', 'INVOICE_PAID', 'INVOICE_VIEWED'],
      );
    } finally {
      await app.close();
    }
  });

  it('a bad selector, routes file or schedule is one line on stderr and exit 2, before anything is bound or created', async () => {
    const dir = tempDir();
    const routes = join(dir, 'routes.json');
    writeFileSync(
      routes,
      JSON.stringify({
        routes: [
          { match: 'INVOICE_*', to: ':3000' },
          { match: 'INVOICE_PAYED', to: ':3001' },
        ],
      }),
    );
    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{"routes": [');
    const cases: Array<[string[], RegExp]> = [
      [['--forward-to', 'INVOIC_*=:3000'], /selector "INVOIC_\*" matches no event .*did you mean INVOICE_\*/],
      [['--forward-to', 'expense=:3000'], /write ENTITY_UPDATE:expense/],
      [['--forward-to', 'ENTITY_UPDATE:expens=:3000'], /matches no entity .*did you mean expense/],
      [['--forward-to', 'INVOICE_PAID='], /names no target/],
      [['--routes', routes], /routes\.json: routes\[1\]: selector "INVOICE_PAYED" .*did you mean INVOICE_PAID/],
      [['--routes', notJson], /broken\.json: not JSON/],
      [['--routes', join(dir, 'missing.json')], /cannot read routes file .*no such file/],
      [['--events', 'INVOICE_VEIWED'], /did you mean INVOICE_VIEWED/],
      [['--retry', '5s'], /--retry goes with --forward-to or --routes/],
      [['--forward-to', ':3000', '--retry', '5s,soon'], /--retry takes a duration/],
      [['--forward-to', ':3000', '--retry', '5s'], /--retry goes with --capture FILE/],
      [['--forward-to', ':3000', '--retry-resign'], /--retry-resign goes with --retry/],
    ];
    for (const [args, pattern] of cases) {
      const config = tempDir('ledgerhook-config-');
      // Refused before anything is bound: in-process (same definitions and error mapping as the bin).
      const result = await runInProcess(['listen', '--port', '0', ...args], {
        env: { LEDGERHOOK_CONFIG_DIR: config },
      });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assertOneLineError(result);
      assert.match(result.stderr, pattern, args.join(' '));
      assert.deepEqual(readdirSync(config), [], 'nothing created (not even the local secret)');
    }
  });

  it('mock --webhook-retries sends a webhook not answered 2xx again, re-signed, until it is taken', async () => {
    const app = await startApp((n) => (n === 1 ? 500 : n === 2 ? 503 : 200));
    const mock = startCli([
      'mock',
      '--port',
      '0',
      '--json',
      '--secret',
      SECRET,
      '--webhook-url',
      `:${app.port}`,
      '--webhook-retries',
      '50ms,50ms,50ms',
    ]);
    try {
      const { baseUrl } = await mock.waitFor((line) => line?.kind === 'listening');
      const control = String(baseUrl).replace(/\/rest\/v5$/, '');
      await fetch(`${control}/__mock/mutate`, {
        method: 'POST',
        body: JSON.stringify({ path: '/clients', create: 1 }),
      });
      const retry = await mock.waitFor((line) => line?.kind === 'webhook-retry');
      assert.deepEqual([retry.attempt, retry.status, retry.retryInMs], [1, 500, 50]);
      const sent = await mock.waitFor((line) => line?.kind === 'webhook-sent');
      assert.deepEqual([sent.attempt, sent.status], [3, 200]);
      assert.equal(app.received.length, 3);
      assert.ok(app.received.every((r) => r.body.equals(app.received[0]?.body ?? Buffer.alloc(0))));
    } finally {
      await mock.stop();
      await app.close();
    }
  });
});
