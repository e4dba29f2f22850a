import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { resolveSampleType } from '../../src/catalogue/resolve.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody } from '../../src/samples/sample-body.js';
import { runCli, startCli, tempDir, assertOneLineError } from '../helpers/cli.js';
import { type RunningInProcess, runInProcess, startInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

const SECRET = 'whsec_listen_replay_test';
const SOAK = process.env.LEDGERHOOK_SOAK === '1';
/**
 * Deliveries in the load test: the full 5,000 in the soak, 400 by default. The same checks at a smaller volume:
 * what can lose, duplicate or tear a capture line is two of the 50 concurrent requests being written at once,
 * and 400 deliveries keep the pool of 50 full for eight rounds. Only counts are asserted, no timing, so the
 * volume cannot make the test flaky on a fast or a slow machine; it only costs CPU (~1 ms per delivery).
 */
const LOAD = SOAK ? 5000 : 400;
/**
 * The SIGKILL test: the listener is killed once it has printed this many deliveries, with send-sample still
 * sending (it is asked for far more than it can send before that: it never finishes on its own, on any machine).
 * Once the listener is dead, send-sample is stopped with Ctrl-C instead of being left to fail its remaining
 * deliveries one by one against the dead port (~2,700 of them, ~1.3 s of CPU, before): those proved nothing
 * about the capture file.
 */
const KILL_AFTER = SOAK ? 5000 : 300;
const KILL_LOAD = 100_000;

/** The built bin's listen, or with `inProcess` the same command module in this process (stopped as Ctrl-C stops it). */
async function startListen(args: string[], { inProcess = false } = {}) {
  const command = ['listen', '--port', '0', '--json', ...args];
  const listen: Omit<RunningInProcess, 'stop'> & { stop(signal?: NodeJS.Signals): Promise<{ code: number | null }> } =
    inProcess ? startInProcess(command) : startCli(command);
  const started = await listen.waitFor((line) => line?.kind === 'listening');
  return { listen, url: started.url as string };
}

/** What `send-sample TYPE --to url --secret S` sends, sent in-process; resolves with the status. */
async function sendSample(url: string, type: string, secret: string): Promise<number> {
  const { type: webhookType, event } = resolveSampleType(type);
  const body = Buffer.from(JSON.stringify(buildSampleBody({ type: webhookType, event: event?.name })), 'utf8');
  const delivery = await buildDelivery({ body, secret });
  const response = await postWebhook({ url: new URL(url), body: delivery.body, headers: delivery.headers });
  return response.status;
}

const readLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Polls a condition until it holds, failing past the deadline (no fixed wait). */
async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await tick(20);
  }
}

/** The iat claim of a captured delivery's token. */
const capturedIat = (record: { headers: Record<string, string> }) =>
  JSON.parse(Buffer.from(record.headers['service-verification']?.split('.')[1] ?? '', 'base64url').toString('utf8'))
    .iat as number;

describe('listen, capture and replay (end to end)', () => {
  it('captures send-sample deliveries; replay re-signs so they verify in a second listener and an independent receiver', async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const first = await startListen(['--secret', SECRET, '--capture', capture]);
    // Sent in-process as send-sample builds them: listen and replay are under test here; send-sample against
    // listen stays spawned in the tests below (forwarding, load, SIGKILL).
    for (const type of ['ENTITY_UPDATE', 'INVOICE_VIEWED', 'EXPENSE_ADDED']) {
      assert.equal(await sendSample(first.url, type, SECRET), 200, type);
    }
    assert.equal(await sendSample(first.url, 'INVOICE_PAID', 'wrong'), 400);
    // A forgery is not parsed (one hash and nothing more): found by its verdict, not its event name.
    await first.listen.waitFor((line) => line?.kind === 'delivery' && line.verdict?.code === 'bad_signature');
    const stopped = await first.listen.stop('SIGINT');
    assert.equal(stopped.code, 130);
    const summary = JSON.parse(first.listen.lines.at(-1) ?? '{}');
    assert.deepEqual(
      [summary.kind, summary.deliveries, summary.valid, summary.invalid, summary.captured],
      ['summary', 4, 3, 1, 4],
    );

    const records = readLines(capture).map((line) => JSON.parse(line));
    assert.equal(records.length, 4);
    assert.equal(records[3].verdict.code, 'bad_signature');
    assert.equal(records[3].verdict.status, 400);

    // Replay the valid ones into a second listen (strict tolerance) and an independent receiver.
    // The original tokens must be at least the 2 s tolerance old for the --as-captured check below;
    // 2 s, not 1, so that a re-signed token verified just after a second boundary (age 1) still passes.
    const newestIat = Math.max(...records.map(capturedIat));
    await until(() => Math.floor(Date.now() / 1000) - newestIat >= 2, 'the captured tokens are 2 s old');
    const second = await startListen(['--secret', SECRET, '--tolerance', '2'], { inProcess: true });
    // Two replays and a verify spawn (into the independent receiver, --as-captured into the live listener, verify
    // --delivery of the live capture); the other variants run in-process against the same live listener.
    const replayed = await runInProcess([
      'replay',
      capture,
      '--to',
      second.url,
      '--type',
      'entity_update',
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
    assert.equal(JSON.parse(replayed.stdout).succeeded, 1);
    const all = await runInProcess([
      'replay',
      capture,
      '--to',
      second.url,
      '--last',
      '4',
      '--secret',
      SECRET,
      '--concurrency',
      '4',
    ]);
    assert.equal(all.code, 0, all.stdout);
    const independent = await startSpecReceiver({ secret: SECRET });
    const intoIndependent = await runCli(['replay', capture, '--to', independent.url, '--secret', SECRET]);
    assert.equal(intoIndependent.code, 0, intoIndependent.stdout);
    // The forged one (refused by listen) is not replayed by default.
    assert.deepEqual(
      independent.received.map((d) => d.status),
      [200, 200, 200],
    );
    assert.deepEqual(
      independent.received.map((d) => d.body.toString('base64')),
      records.filter((r) => r.verdict.valid === true).map((r) => r.body),
      'bodies are byte-exact',
    );
    await independent.close();

    // --as-captured sends the original tokens, now older than the tolerance of 2 s.
    const asCaptured = await runCli(['replay', capture, '--to', second.url, '--index', '0', '--as-captured', '--json']);
    assert.equal(asCaptured.code, 1);
    const expired = await second.listen.waitFor((line) => line?.kind === 'delivery' && line.verdict.valid === false);
    assert.equal(expired.verdict.code, 'expired');
    await second.listen.stop();

    // Verify a capture offline, as of its receipt.
    const offline = await runCli([
      'verify',
      '--delivery',
      `${capture}#${records[1].id}`,
      '--secret',
      SECRET,
      '--at-receipt',
      '--json',
    ]);
    assert.equal(offline.code, 0, offline.stdout);
    const tooOld = await runInProcess([
      'verify',
      '--delivery',
      `${capture}:0`,
      '--secret',
      SECRET,
      '--tolerance',
      '1',
      '--json',
    ]);
    assert.equal(JSON.parse(tooOld.stdout).code, 'expired');
  });

  it('forwards byte-exact to the app, answers with its status and body (a proxy), and 502 when the app is down', async () => {
    const seen: Array<{ body: string; headers: Record<string, unknown> }> = [];
    const app = createServer((req, res) => {
      let body = '';
      req
        .on('data', (c) => (body += c))
        .on('end', () => {
          seen.push({ body, headers: req.headers });
          res.writeHead(202, { 'content-type': 'text/plain; charset=utf-8' }).end('queued');
        });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
    const { listen, url } = await startListen(['--secret', SECRET, '--forward-to', appUrl]);
    const sent = await runCli(['send-sample', 'INVOICE_VIEWED', '--to', url, '--secret', SECRET, '--json']);
    assert.equal(JSON.parse(sent.stdout).status, 202);
    const [forwarded] = seen;
    assert.ok(forwarded);
    assert.equal(forwarded.body, JSON.parse(sent.stdout).body);
    assert.match(String(forwarded.headers['service-verification']), /^ey/);
    assert.equal(forwarded.headers['content-type'], 'application/json');
    const line = await listen.waitFor((l) => l?.kind === 'delivery');
    assert.equal(line.forward.status, 202);
    // The sender gets the app's answer whole: status, body and content type, never listen's own body.
    const body = Buffer.from(JSON.stringify(buildSampleBody({ type: 'ENTITY_UPDATE' })), 'utf8');
    const delivery = await buildDelivery({ body, secret: SECRET });
    const relayed = await postWebhook({ url: new URL(url), body: delivery.body, headers: delivery.headers });
    assert.equal(relayed.status, 202);
    assert.equal(relayed.bodyExcerpt, 'queued');
    assert.equal(relayed.contentType, 'text/plain; charset=utf-8');
    await new Promise((resolve) => {
      app.closeAllConnections();
      app.close(resolve);
    });
    const down = await runInProcess(['send-sample', 'INVOICE_VIEWED', '--to', url, '--secret', SECRET]);
    assert.equal(down.code, 1);
    assert.match(down.stdout, /502/);
    const failed = await listen.waitFor((l) => l?.kind === 'delivery' && l.forward?.error);
    assert.match(failed.forward.error, /nothing is listening/);
    await listen.stop();
  });

  it('verifies nothing without a secret and says so once; --accept-invalid answers 200 but records invalid', async () => {
    // sandbox: the local environment would verify with its development secret.
    const open = startCli(['listen', '--port', '0', '--env', 'sandbox']);
    const url = ((await open.waitForStderr(/listening on (\S+)/))[1] ?? '').replace(/,$/, '');
    await open.waitForStderr(/NOT verified/);
    // send-sample in-process: listen is under test here.
    const sent = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', url, '--unsigned']);
    assert.equal(sent.code, 0);
    await open.waitFor((line) => /not verified/.test(line) && /ENTITY_UPDATE/.test(line));
    await open.stop();
    assert.equal(
      open
        .stderr()
        .split('\n')
        .filter((line) => /NOT verified/.test(line)).length,
      1,
    );

    const lenient = await startListen(['--secret', SECRET, '--accept-invalid'], { inProcess: true });
    const forged = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', lenient.url, '--secret', 'nope']);
    assert.equal(forged.code, 0);
    const record = await lenient.listen.waitFor((l) => l?.kind === 'delivery');
    assert.equal(record.verdict.valid, false);
    assert.equal(record.verdict.status, 200);
    await lenient.listen.stop();
  });

  it('keeps serving through hostile input: oversized body, garbage, 10,000 headers, slowloris, wrong method', async () => {
    const { listen, url } = await startListen(['--secret', SECRET, '--max-body', '1000', '--request-timeout', '1']);
    const { port } = new URL(url);
    const big = await fetch(url, { method: 'POST', body: 'x'.repeat(5000) });
    assert.equal(big.status, 413);
    const get = await fetch(url);
    assert.equal(get.status, 405);
    // The deadline is cleared once the socket closes: left running, it held the test process ~4 s past its end.
    const rawExchange = (payload: string | Buffer, waitMs = 4000) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        const deadline = setTimeout(() => socket.destroy(), waitMs);
        const done = () => {
          clearTimeout(deadline);
          resolve(answer);
        };
        socket
          .on('data', (d) => (answer += d))
          .on('close', done)
          .on('error', done);
        socket.write(payload);
      });
    assert.match(
      await rawExchange(Buffer.from([0x16, 0x03, 0x01, 0xff, 0x00, 0x0a, 0x0d, 0x0a, 0x0d, 0x0a])),
      /^HTTP\/1\.1 400/,
    );
    const manyHeaders = `POST / HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 10_000 }, (_, i) => `x-h${i}: ${i}`).join('\r\n')}\r\n\r\n`;
    assert.match(await rawExchange(manyHeaders), /^HTTP\/1\.1 431|^$/);
    const started = Date.now();
    const slow = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.write('POST / HTTP/1.1\r\nHost: x\r\n');
      const drip = setInterval(() => socket.write('x-slow: 1\r\n'), 200);
      socket
        .on('data', (d) => (answer += d))
        .on('close', () => {
          clearInterval(drip);
          resolve(answer);
        })
        .on('error', () => {});
    });
    assert.ok(Date.now() - started < 8000, 'a slow sender is cut off');
    assert.match(slow, /^HTTP\/1\.1 408|^$/);
    const chunked = await fetch(url, {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('not json'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 400);
    const ok = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', url, '--secret', SECRET]);
    assert.equal(ok.code, 0, 'still serving after all that');
    const stopped = await listen.stop();
    assert.equal(stopped.code, 130);
  });

  it('exits 2 with one line when the port is taken or the capture file cannot be opened', async () => {
    // Refused at start-up, so in-process: the port held by a server of this process.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = String((holder.address() as AddressInfo).port);
    // sandbox: the local environment's first use would add its own lines (the development secret).
    const taken = await runInProcess(['listen', '--port', port, '--env', 'sandbox']);
    await new Promise((resolve) => holder.close(resolve));
    assert.equal(taken.code, 2);
    assert.match(taken.stderr, /already in use/);
    assertOneLineError(taken);
    const badCapture = await runInProcess(
      ['listen', '--port', '0', '--capture', join(tempDir(), 'no', 'such', 'dir.jsonl')].concat('--env', 'sandbox'),
    );
    assert.equal(badCapture.code, 2);
    assertOneLineError(badCapture);
  });

  it('replay skips a torn last line with a warning, and refuses bad selectors with one line', async () => {
    const dir = tempDir();
    const capture = join(dir, 'c.jsonl');
    const { listen, url } = await startListen(['--secret', SECRET, '--capture', capture], { inProcess: true });
    assert.equal(await sendSample(url, 'ENTITY_UPDATE', SECRET), 200);
    await listen.waitFor((l) => l?.kind === 'delivery');
    await listen.stop();
    appendFileSync(capture, '{"id":"dlv_torn","receivedAt":"2026-');
    const receiver = await startSpecReceiver({ secret: SECRET });
    // replay in-process over the capture the live listener wrote: replay spawns in the first test above.
    const result = await runInProcess(['replay', capture, '--to', receiver.url, '--secret', SECRET]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /line 2 is incomplete/);
    await receiver.close();
    for (const args of [
      ['--index', '7'],
      ['--id', 'dlv_nope'],
    ]) {
      const bad = await runInProcess(['replay', capture, '--to', '1', '--secret', SECRET, ...args]);
      assert.equal(bad.code, 2);
      assert.equal(
        bad.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('error:')).length,
        1,
      );
    }
    const missing = await runInProcess(['replay', join(dir, 'missing.jsonl'), '--to', '1', '--secret', SECRET]);
    assert.equal(missing.code, 2);
    assertOneLineError(missing);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const empty = await runInProcess(['replay', join(dir, 'empty.jsonl'), '--to', '1', '--secret', SECRET]);
    assert.equal(empty.code, 2);
  });
});

describe('listen under load', () => {
  it(`captures ${LOAD} deliveries from send-sample --count ${LOAD} --concurrency 50: all there, each line valid JSON, none lost or duplicated`, async () => {
    const capture = join(tempDir(), 'load.jsonl');
    const { listen, url } = await startListen(['--secret', SECRET, '--capture', capture]);
    const sent = await runCli(
      [
        'send-sample',
        'ENTITY_UPDATE',
        '--count',
        String(LOAD),
        '--concurrency',
        '50',
        '--to',
        url,
        '--secret',
        SECRET,
        '--json',
      ],
      { timeoutMs: 120_000 },
    );
    assert.equal(sent.code, 0, sent.stderr);
    assert.deepEqual(JSON.parse(sent.stdout).statusCounts, { 200: LOAD });
    await listen.stop();
    const lines = readLines(capture);
    assert.equal(lines.length, LOAD);
    const ids = new Set(lines.map((line) => JSON.parse(line).id));
    assert.equal(ids.size, LOAD);
  });

  it('leaves a capture whose every complete line parses when killed with SIGKILL mid-load', async () => {
    const capture = join(tempDir(), 'killed.jsonl');
    const { listen, url } = await startListen(['--secret', SECRET, '--capture', capture]);
    const load = startCli([
      'send-sample',
      'ENTITY_UPDATE',
      '--count',
      String(KILL_LOAD),
      '--concurrency',
      '50',
      '--to',
      url,
      '--secret',
      SECRET,
      '--timeout',
      '2',
    ]);
    // Mid-load: once a few hundred deliveries are in, with many more in flight.
    let seen = 0;
    await listen.waitFor((l) => l?.kind === 'delivery' && ++seen >= KILL_AFTER, 30_000);
    await listen.stop('SIGKILL');
    // The listener is gone and send-sample has not finished: the kill came mid-load.
    assert.equal(load.child.exitCode, null, `send-sample was still sending; stderr:\n${load.stderr()}`);
    const guard = setTimeout(() => load.child.kill('SIGKILL'), 30_000);
    const result = await load.stop('SIGINT');
    clearTimeout(guard);
    assert.equal(result.signal, null, 'send-sample stops on Ctrl-C');
    assert.notEqual(result.code, 0);
    const text = readFileSync(capture, 'utf8');
    const complete = text.endsWith('\n') ? text.split('\n').slice(0, -1) : text.split('\n').slice(0, -1);
    assert.ok(complete.length > 0);
    for (const line of complete) JSON.parse(line);
  });
});
