/**
 * check-consumer --state: a command (argv, no shell; stdout bounded, stderr's tail kept, killed past its
 * time) and a loopback URL (one bounded GET). The state is untrusted: every failure is one line.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stateSource } from '../../src/consumer-check/state-source.js';
import { LedgerhookError } from '../../src/errors.js';
import { tempDir } from '../helpers/cli.js';
import { isRunning, untilEnded } from '../helpers/processes.js';

const node = JSON.stringify(process.execPath);
const script = (code: string) => `${node} -e ${JSON.stringify(code)}`;

function rejectsWith(promise: Promise<unknown>, reason: string, message: RegExp) {
  return assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof LedgerhookError, String(error));
    assert.equal(error.details.reason, reason, error.message);
    assert.match(error.message, message);
    assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
    return true;
  });
}

describe('stateSource: a command', () => {
  const options = { env: process.env, timeoutMs: 5000, maxBytes: 64 * 1024 };

  it('runs it without a shell and parses what it prints', async () => {
    const source = stateSource(
      script('console.log(JSON.stringify({ users: { u: { "/expenses": [{ id: process.argv.length }] } } }))'),
      options,
    );
    assert.equal(source.kind, 'command');
    assert.deepEqual(await source.read(), { users: { u: { '/expenses': [{ id: 1 }] } } });
    // A word with a quote and a space is one argument, never re-read by a shell.
    const echo = stateSource(
      `${script('console.log(JSON.stringify(process.argv.slice(1)))')} "a b; rm -rf x"`,
      options,
    );
    assert.deepEqual(await echo.read(), ['a b; rm -rf x']);
  });

  it('says why it failed, in one line: exit status with stderr, not JSON, no such command, too much, too slow', async () => {
    await rejectsWith(
      stateSource(
        script('console.error("first"); console.error("boom: no store \\u001b[31m"); process.exit(3)'),
        options,
      ).read(),
      'consumer_state_failed',
      /exited with 3: "boom: no store \\u001b\[31m"$/,
    );
    await rejectsWith(
      stateSource(script('console.log("<html>")'), options).read(),
      'consumer_state_invalid',
      /did not print JSON \(7 bytes starting "<html>\\n"\)/,
    );
    await rejectsWith(
      stateSource(script(''), options).read(),
      'consumer_state_invalid',
      /did not print JSON \(nothing\)/,
    );
    await rejectsWith(
      stateSource('no-such-command-ledgerhook x', options).read(),
      'consumer_state_failed',
      /there is no command "no-such-command-ledgerhook"/,
    );
    await rejectsWith(
      stateSource(script('process.stdout.write("[" + "1,".repeat(100000) + "1]")'), options).read(),
      'consumer_state_too_large',
      /printed more than 65536 bytes/,
    );
    await rejectsWith(
      stateSource(script('setTimeout(() => {}, 60000)'), { ...options, timeoutMs: 300 }).read(),
      'consumer_state_failed',
      /did not finish within 0\.3 s/,
    );
  });

  it('stops at once when the check is stopped', async () => {
    const controller = new AbortController();
    const reading = stateSource(script('setTimeout(() => {}, 60000)'), options).read(controller.signal);
    controller.abort();
    await assert.rejects(reading, (error: unknown) => error instanceof LedgerhookError && error.code === 'ERR_ABORTED');
  });
});

describe('stateSource: a command that leaves processes behind (its own process group)', () => {
  const options = { env: process.env, timeoutMs: 5000, maxBytes: 64 * 1024 };
  /** The pids a command wrote to its file, one a line, once it has written `count` of them. */
  async function pidsIn(file: string, count: number): Promise<number[]> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const pids = (() => {
        try {
          return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
        } catch {
          return [];
        }
      })();
      if (pids.length >= count) return pids;
      if (Date.now() > deadline) throw new Error(`${file} holds ${pids.length} pids, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('reads what the command printed as soon as it exits, and ends what it left running', async () => {
    const started = Date.now();
    // `sleep 40 &` inherits the command's stdout: waiting for that pipe to close would take 40 s.
    const source = stateSource(`sh -c 'sleep 40 & echo "{\\"users\\":{},\\"left\\":$!}"'`, options);
    const state = (await source.read()) as { users: object; left: number };
    assert.deepEqual(state.users, {});
    assert.ok(Date.now() - started < 4000, `read in ${Date.now() - started} ms`);
    await untilEnded([state.left]);
  });

  it('at the time bound and on a stop, ends the whole group: the command and what it started', async () => {
    for (const stop of ['bound', 'signal'] as const) {
      const file = join(tempDir(), 'pids');
      const controller = new AbortController();
      const started = Date.now();
      const reading = stateSource(`sh -c 'echo $$ > ${file}; sleep 40 & echo $! >> ${file}; wait'`, {
        ...options,
        timeoutMs: stop === 'bound' ? 300 : 30_000,
      }).read(controller.signal);
      const pids = await pidsIn(file, 2);
      assert.ok(pids.every(isRunning), 'both run while the command is read');
      if (stop === 'signal') controller.abort();
      if (stop === 'bound') await rejectsWith(reading, 'consumer_state_failed', /did not finish within 0\.3 s/);
      else
        await assert.rejects(
          reading,
          (error: unknown) => error instanceof LedgerhookError && error.code === 'ERR_ABORTED',
        );
      assert.ok(Date.now() - started < 4000, `${stop}: ended in ${Date.now() - started} ms`);
      await untilEnded(pids);
    }
  });
});

describe('stateSource: a URL', () => {
  let server: Server;
  let origin = '';
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/state') return void res.end('{"users":{}}');
      if (req.url === '/big') return void res.end(`[${'1,'.repeat(100_000)}1]`);
      res.statusCode = 503;
      res.end('{"error":"starting"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    // The reader's keep-alive socket would hold close() until undici lets it go (seconds).
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const options = { timeoutMs: 5000, maxBytes: 64 * 1024 };

  it('GETs the JSON from this machine', async () => {
    const source = stateSource(`${origin}/state`, options);
    assert.equal(source.kind, 'url');
    assert.deepEqual(await source.read(), { users: {} });
  });

  it('refuses another machine, and says what a bad answer was', async () => {
    for (const url of ['http://10.0.0.1/state', 'https://example.com/state', 'http://127.0.0.1.example.com/']) {
      assert.throws(() => stateSource(url, options), /must be on this machine/);
    }
    assert.throws(() => stateSource('ftp://127.0.0.1/state', options), /an http\(s\) URL or a command/);
    await rejectsWith(
      stateSource(`${origin}/other`, options).read(),
      'consumer_state_failed',
      /answered 503: "\{\\"error\\":\\"starting\\"\}"$/,
    );
    await rejectsWith(
      stateSource(`${origin}/big`, options).read(),
      'consumer_state_too_large',
      /more than 65536 bytes/,
    );
    await assert.rejects(
      stateSource('http://127.0.0.1:1/state', options).read(),
      /nothing is listening on 127\.0\.0\.1:1/,
    );
  });
});
