import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Agent, getGlobalDispatcher, request } from 'undici';
import { signWebhook } from '@ledgerhook/webhooks';
import { runPool } from '../../src/util/worker-pool.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { startInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_listen_abuse_test';
const SOAK = process.env.LEDGERHOOK_SOAK === '1';

async function startListen(args: string[]) {
  const listen = startCli(['listen', '--port', '0', '--json', ...args]);
  const started = await listen.waitFor((line) => line?.kind === 'listening');
  return { listen, url: started.url as string };
}

/**
 * The same command module in this process, stopped as Ctrl-C stops it: for what the listener does with
 * its sockets and files, where the process's memory, exit code or death are not under test.
 */
async function startListenInProcess(args: string[]) {
  const listen = startInProcess(['listen', '--port', '0', '--json', ...args]);
  const started = await listen.waitFor((line) => line?.kind === 'listening');
  return { listen, url: started.url as string };
}

/** Peak resident memory of a process, from the kernel: VmHWM in /proc/<pid>/status. */
function peakRssBytes(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match?.[1], 'VmHWM readable');
  return Number(match[1]) * 1024;
}

async function post(url: string, body: Buffer | string, token: string, dispatcher?: Agent) {
  const response = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'service-verification': token },
    dispatcher: dispatcher ?? getGlobalDispatcher(),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

/** Resolves with how many of the sockets the server closed before the deadline. */
function closedWithin(sockets: Socket[], deadlineMs: number, wanted = sockets.length): Promise<number> {
  return new Promise((resolve) => {
    let closed = 0;
    const timer = setTimeout(() => resolve(closed), deadlineMs);
    for (const socket of sockets)
      socket.on('close', () => {
        closed += 1;
        if (closed >= wanted) {
          clearTimeout(timer);
          resolve(closed);
        }
      });
  });
}

function openIdleSockets(url: string, count: number): Promise<Socket[]> {
  const { port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
          socket.on('error', () => {});
          // Read whatever the server says, so that its FIN is seen and 'close' fires.
          socket.resume();
          // A socket the server drops on arrival may close before it ever connects.
          socket.on('close', () => resolve(socket));
        }),
    ),
  );
}

describe('listen under abuse', () => {
  it('stays small under a flood of forged 1 MB deliveries, captures only their head, and still answers a valid one', {
    timeout: SOAK ? 600_000 : 120_000,
  }, async () => {
    const deliveries = SOAK ? 1000 : 150;
    const concurrency = SOAK ? 200 : 100;
    const capture = join(tempDir(), 'flood.jsonl');
    const { listen, url } = await startListen(['--secret', SECRET, '--capture', capture]);
    const pid = listen.child.pid;
    assert.ok(pid);
    const pad = 'x'.repeat(1_000_000 - 100);
    const forgedBody = Buffer.from(JSON.stringify({ userId: 'attacker', type: 'ENTITY_UPDATE', entities: [], pad }));
    const forgedToken = await signWebhook(forgedBody, 'not-the-secret');
    const dispatcher = new Agent({ connections: concurrency });
    const statuses = new Map<number, number>();
    let valid: { status: number; ms: number } | undefined;
    await runPool(deliveries, concurrency, async (index) => {
      if (index === Math.floor(deliveries / 2)) {
        // A valid delivery in the middle of the flood, from its own process: its latency is the listener's,
        // not this busy test process's.
        const sent = await runCli(['send-sample', 'ENTITY_UPDATE', '--to', url, '--secret', SECRET, '--json']);
        const answer = JSON.parse(sent.stdout);
        valid = { status: answer.status, ms: answer.latencyMs };
      }
      const answer = await post(url, forgedBody, forgedToken, dispatcher).catch(() => ({ status: 0 }));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    });
    await dispatcher.close();
    const peak = peakRssBytes(pid);
    await listen.stop();
    const refused = statuses.get(400) ?? 0;
    const busy = statuses.get(503) ?? 0;
    console.log(
      `# flood ${deliveries} x 1 MB at ${concurrency}: peak RSS ${Math.round(peak / 1024 / 1024)} MB, 400: ${refused}, 503: ${busy}, valid answered in ${valid?.ms.toFixed(0)} ms`,
    );
    assert.equal(valid?.status, 200, `the valid delivery was answered ${valid?.status}`);
    // A listener that answers before a 1 MB upload is done may close the socket under it: the sender then
    // sees a reset (0) instead of the 400/503 (a reset is a failed delivery to it, so nothing is accepted).
    const reset = statuses.get(0) ?? 0;
    assert.equal(
      refused + busy + reset,
      deliveries,
      `every forged delivery is refused or told to retry: ${[...statuses]}`,
    );
    assert.ok(reset <= deliveries * 0.05, `resets are the exception: ${[...statuses]}`);
    assert.deepEqual(
      [...statuses.keys()].filter((s) => ![0, 400, 503].includes(s)),
      [],
      'never a 2xx to a forgery',
    );
    assert.ok(peak < 300 * 1024 * 1024, `peak RSS ${Math.round(peak / 1024 / 1024)} MB`);
    // The issue's own goal, asserted in the soak only: on a shared CI machine a fixed bound is not robust.
    if (SOAK) assert.ok((valid?.ms ?? Infinity) < 1000, `the valid delivery took ${valid?.ms} ms`);

    const summary = JSON.parse(listen.lines.find((line) => line.includes('"kind":"summary"')) ?? '{}');
    const lines = readFileSync(capture, 'utf8').split('\n').filter(Boolean);
    const forged = lines.map((line) => JSON.parse(line)).filter((record) => record.verdict.valid === false);
    // A reset one may have been judged (and captured or counted) before its socket closed; past the
    // refused bound the rest are counted, not written.
    const judged = forged.length + summary.refusedNotCaptured;
    assert.ok(
      judged >= refused && judged <= refused + reset,
      `each judged forgery captured or counted once (${judged})`,
    );
    assert.equal(lines.length, forged.length + 1, 'the valid one is captured; 503s are not');
    for (const record of forged) {
      assert.equal(record.bodyTruncated, true);
      assert.equal(record.bodyBytes, forgedBody.length);
      assert.equal(Buffer.from(record.body, 'base64').length, 4096);
      assert.equal(
        record.bodySha256,
        JSON.parse(Buffer.from(forgedToken.split('.')[1] ?? '', 'base64url').toString('utf8')).request_body_sha256,
      );
    }
    assert.ok(statSync(capture).size < lines.length * 16 * 1024, `capture is ${statSync(capture).size} bytes`);
  });

  it('writes refused deliveries within a rate and a total, counts the rest, says so once, and still writes every valid one', async () => {
    const body = Buffer.from(
      JSON.stringify({ userId: 'u', type: 'ENTITY_UPDATE', entities: [], pad: 'f'.repeat(8000) }),
    );
    const forgedToken = await signWebhook(body, 'not-the-secret');
    const valid = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const flood = async (url: string, count: number) => {
      const dispatcher = new Agent({ connections: 20 });
      const statuses = new Map<number, number>();
      await runPool(count, 20, async () => {
        const { status } = await post(url, body, forgedToken, dispatcher);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      });
      await dispatcher.close();
      return statuses;
    };
    const refusedLines = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((record) => record.verdict.valid === false);

    // The rate: 2 a second in bursts of 20.
    const byRate = join(tempDir(), 'rate.jsonl');
    const rated = await startListenInProcess(['--secret', SECRET, '--capture', byRate, '--capture-refused-rate', '2']);
    const started = Date.now();
    const statuses = await flood(rated.url, 120);
    const elapsedSeconds = (Date.now() - started) / 1000;
    assert.deepEqual([...statuses], [[400, 120]]);
    assert.equal((await post(rated.url, valid, await signWebhook(valid, SECRET))).status, 200);
    await rated.listen.stop();
    const written = refusedLines(byRate).length;
    assert.ok(
      written >= 20 && written <= 20 + Math.ceil(elapsedSeconds * 2) + 1,
      `${written} written in ${elapsedSeconds} s`,
    );
    const limits = rated.listen.lines
      .filter((line) => line.includes('"kind":"capture-limit"'))
      .map((line) => JSON.parse(line));
    assert.equal(limits.length, 1, 'said once');
    assert.deepEqual([limits[0].limit, limits[0].perSecond], ['rate', 2]);
    const summary = JSON.parse(rated.listen.lines.find((line) => line.includes('"kind":"summary"')) ?? '{}');
    assert.deepEqual([summary.invalid, summary.refusedNotCaptured], [120, 120 - written]);
    assert.equal(
      readFileSync(byRate, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"valid":true')).length,
      1,
    );

    // The total: past 20,000 bytes of refused lines, none; in words on stderr without --json.
    const byTotal = join(tempDir(), 'total.jsonl');
    const human = startCli([
      'listen',
      '--port',
      '0',
      '--secret',
      SECRET,
      '--capture',
      byTotal,
      '--capture-refused-max',
      '20000',
    ]);
    const url = (await human.waitForStderr(/listening on (\S+),/))[1] ?? '';
    await flood(url, 30);
    await human.waitForStderr(
      /refused deliveries are now counted, not written to \S+: 20000 bytes of them were written/,
    );
    const stopped = await human.stop();
    assert.equal(stopped.code, 130, 'Ctrl-C: 130');
    assert.ok(readFileSync(byTotal).length <= 20_000, `${readFileSync(byTotal).length} bytes`);
    assert.ok(refusedLines(byTotal).length >= 1);
    assert.equal(human.stderr().match(/are now counted/g)?.length, 1);
    assert.match(human.lines.join('\n'), /30 invalid.*\(\d+ invalid counted, not written\)/);

    // --accept-invalid answers 200 only to what it records: one kept out by the bound gets its 400.
    const none = join(tempDir(), 'none.jsonl');
    const open = await startListenInProcess([
      '--secret',
      SECRET,
      '--capture',
      none,
      '--accept-invalid',
      '--capture-refused-rate',
      '0',
    ]);
    assert.equal((await post(open.url, body, forgedToken)).status, 400);
    await open.listen.stop();
    assert.equal(readFileSync(none, 'utf8'), '');
  });

  it('still receives a valid body larger than the in-memory cap when --max-body allows it', async () => {
    const { listen, url } = await startListenInProcess(['--secret', SECRET, '--max-body', String(6 * 1024 * 1024)]);
    const body = JSON.stringify({
      userId: 'u',
      type: 'ENTITY_UPDATE',
      entities: ['expense'],
      pad: 'z'.repeat(5_000_000),
    });
    assert.equal((await post(url, body, await signWebhook(body, SECRET))).status, 200);
    const delivery = await listen.waitFor((line) => line?.kind === 'delivery');
    assert.equal(delivery.bodyBytes, Buffer.byteLength(body));
    await listen.stop();
  });

  it('keeps whole refused bodies with --capture-refused-bodies', async () => {
    const capture = join(tempDir(), 'whole.jsonl');
    const { listen, url } = await startListenInProcess([
      '--secret',
      SECRET,
      '--capture',
      capture,
      '--capture-refused-bodies',
    ]);
    const body = JSON.stringify({ userId: 'u', type: 'ENTITY_UPDATE', entities: [], pad: 'y'.repeat(10_000) });
    const answer = await post(url, body, await signWebhook(body, 'wrong'));
    assert.equal(answer.status, 400);
    await listen.waitFor((line) => line?.kind === 'delivery');
    await listen.stop();
    const [record] = readFileSync(capture, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    assert.equal(Buffer.from(record.body, 'base64').toString('utf8'), body);
    assert.equal(record.bodyTruncated, undefined);
  });

  it('closes connections that send nothing after --idle-timeout', async () => {
    const { listen, url } = await startListenInProcess(['--secret', SECRET, '--idle-timeout', '0.5']);
    const sockets = await openIdleSockets(url, 20);
    // The server, not the client, must close them: the wait is bounded far below the 30 s default.
    assert.equal(await closedWithin(sockets, 10_000), 20);
    await listen.stop();
  });

  it('caps concurrent connections with --max-connections and keeps serving once they go', async () => {
    const { listen, url } = await startListenInProcess([
      '--secret',
      SECRET,
      '--max-connections',
      '3',
      '--idle-timeout',
      '60',
    ]);
    const sockets = await openIdleSockets(url, 8);
    // With a 60 s idle timeout, only the cap can close these within the wait.
    assert.ok((await closedWithin(sockets, 10_000, 5)) >= 5, 'connections over the cap are closed on arrival');
    for (const socket of sockets) socket.destroy();
    const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const token = await signWebhook(body, SECRET);
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = await post(url, body, token).then(
        (answer) => answer.status,
        () => 0,
      );
    }
    assert.equal(status, 200);
    await listen.stop();
  });

  // The soak sends 5,000 and kills after 1,500 answered; by default 2,000 and 600 (the same check, smaller volume).
  const killTotal = SOAK ? 5000 : 2000;
  const killAfter = SOAK ? 1500 : 600;
  it(`has every 2xx-answered delivery in the capture file when killed with SIGKILL during ${killTotal} deliveries`, {
    timeout: 120_000,
  }, async () => {
    const capture = join(tempDir(), 'kill.jsonl');
    const { listen, url } = await startListen(['--secret', SECRET, '--capture', capture]);
    const dispatcher = new Agent({ connections: 50 });
    const answered = new Set<string>();
    let killed: Promise<unknown> | undefined;
    await runPool(
      killTotal,
      50,
      async (index) => {
        const userId = `user_${index}`;
        const body = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: ['expense'] });
        const status = await post(url, body, await signWebhook(body, SECRET), dispatcher).then(
          (answer) => answer.status,
          () => 0,
        );
        if (status >= 200 && status < 300) answered.add(userId);
        if (answered.size >= killAfter) killed ??= listen.stop('SIGKILL');
      },
      () => killed !== undefined,
    );
    await killed;
    await dispatcher.destroy();
    assert.ok(answered.size >= killAfter);
    const text = readFileSync(capture, 'utf8');
    const complete = text.split('\n').slice(0, -1);
    const inFile = new Set(complete.map((line) => JSON.parse(line).userId as string));
    const missing = [...answered].filter((userId) => !inFile.has(userId));
    assert.deepEqual(missing, [], `${missing.length} deliveries answered 2xx are not in the capture file`);
  });
});
