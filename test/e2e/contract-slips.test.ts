/**
 * Small slips of the CLI's contract: `sign --json`, one reason for a refused connection, exit 130 on
 * Ctrl-C, exit 4 for a refused token, an unreachable Redis in one line, a Postgres URL without a user,
 * a missing --body file named first. What a process shows (a signal's exit code, a worker that exits,
 * a user name that the Postgres driver reads from the process environment) and the queue command's one
 * end-to-end run use the built CLI; the rest runs in-process through the same definitions, command
 * modules and error mapping.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { captureRecord } from '../helpers/capture-file.js';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { createTestSchema, DATABASE_URL, servicesSkip } from '../scale/helpers/services.js';

const SECRET = 'whsec_contract_slips';
const BODY = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });

/** A loopback port that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function serve(status: number): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{"error":"no"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`, server };
}

describe('small contract slips', () => {
  let capture: string;
  before(async () => {
    capture = join(tempDir(), 'deliveries.jsonl');
    writeFileSync(capture, `${JSON.stringify(await captureRecord(BODY, { id: 'dlv_slips_1', secret: SECRET }))}\n`);
  });

  it('sign --json prints one document with ok', async () => {
    const result = await runInProcess(['sign', '--data', BODY, '--json'], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
    });
    assert.equal(result.code, 0, result.stderr);
    const document = JSON.parse(result.stdout);
    assert.equal(document.ok, true);
    assert.match(document.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(document.headerName, 'Service-Verification');
    assert.equal(document.bodyBytes, Buffer.byteLength(BODY));
  });

  it('a refused connection is connection_refused for send-sample (one or many) and replay alike', async () => {
    const to = `http://127.0.0.1:${await closedPort()}/`;
    const runs = [
      ['send-sample', 'ENTITY_UPDATE', '--to', to, '--json'],
      ['send-sample', 'ENTITY_UPDATE', '--to', to, '--count', '3', '--json'],
      ['replay', capture, '--to', to, '--json'],
    ];
    for (const args of runs) {
      const result = await runInProcess(args, { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } });
      assert.equal(result.code, 3, `${args.join(' ')}: ${result.stderr}`);
      const { error } = JSON.parse(result.stdout);
      assert.deepEqual([error.code, error.reason], ['ERR_NETWORK', 'connection_refused'], args.join(' '));
      assert.match(error.message, /nothing is listening on 127\.0\.0\.1:\d+ \(connection refused\)/);
    }
  });

  it('a token the service refuses (401 or 403) exits 4, its own code', async () => {
    for (const [status, reason] of [
      [401, 'token_rejected'],
      [403, 'access_denied'],
    ] as const) {
      const { url, server } = await serve(status);
      try {
        const args = ['sync', 'expenses', '--base-url', url, '--out', tempDir()];
        const env = { LEDGERHOOK_TOKEN: 'tok_wrong' };
        const human = await runInProcess(args, { env });
        assert.equal(human.code, 4, human.stderr);
        assertOneLineError(human);
        const json = await runInProcess([...args, '--json'], { env });
        const { error } = JSON.parse(json.stdout);
        assert.deepEqual([json.code, error.code, error.reason, error.exitCode], [4, 'ERR_AUTH', reason, 4]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('listen and mock exit 130 on Ctrl-C (the exit-code table), 0 on SIGTERM', async () => {
    for (const args of [
      ['listen', '--port', '0', '--json'],
      ['mock', '--port', '0', '--json'],
    ]) {
      for (const [signal, code] of [
        ['SIGINT', 130],
        ['SIGTERM', 0],
      ] as const) {
        const running = startCli(args);
        await running.waitFor((line) => line?.kind === 'listening');
        const stopped = await running.stop(signal);
        assert.equal(stopped.code, code, `${args[0]} ${signal}: ${running.stderr()}`);
        // A clean stop either way: no error line, nothing on stderr but the start-up notes.
        assert.doesNotMatch(running.stderr(), /error/, `${args[0]} ${signal}`);
      }
    }
  });

  it('send-sample --body with a missing file names the file first (no --to needed to say so)', async () => {
    const missing = join(tempDir(), 'missing-body.json');
    const result = await runInProcess(['send-sample', '--body', missing]);
    assert.equal(result.code, 2, result.stderr);
    assertOneLineError(result);
    assert.equal(result.stderr.trim(), `error: cannot read body file ${missing}: no such file`);
  });
});

describe('services named in one line', async () => {
  const skip = await servicesSkip();

  it('an unreachable Redis: one line naming it and why, none of ioredis\u2019 internals', async () => {
    const queue = `redis://127.0.0.1:${await closedPort()}`;
    // The built bin: the one spawned run of a queue command.
    const status = await runCli(['queue', 'status', '--queue', queue], { timeoutMs: 20_000 });
    assert.equal(status.code, 3, status.stderr);
    assertOneLineError(status);
    assert.match(
      status.stderr,
      /cannot reach the Redis queue redis:\/\/127\.0\.0\.1:\d+: nothing is listening on 127\.0\.0\.1:\d+ \(connection refused\)/,
    );
    assert.doesNotMatch(status.stderr, /maxRetriesPerRequest|max retries/i);
  });

  it('a worker whose Redis cannot be reached says so in one line and exits, instead of retrying unseen', {
    skip,
  }, async () => {
    const schema = await createTestSchema();
    try {
      const queue = `redis://127.0.0.1:${await closedPort()}`;
      // The built bin: that the process exits is the point.
      const worker = await runCli(
        ['worker', '--queue', queue, '--store', schema.url, '--base-url', 'http://127.0.0.1:9/rest/v5'],
        { env: { LEDGERHOOK_TOKEN: 'tok' }, timeoutMs: 30_000 },
      );
      assert.equal(worker.code, 3, worker.stderr);
      assertOneLineError(worker);
      assert.match(worker.stderr, /cannot reach the Redis queue .*connection refused/);
      assert.doesNotMatch(worker.stderr, /TCPConnectWrap|errno/);
    } finally {
      await schema.drop();
    }
  });

  it('a Postgres URL without a user name gets advice about the URL, not `store migrate`', { skip }, async () => {
    const noUser = new URL(DATABASE_URL);
    noUser.username = '';
    noUser.password = '';
    const result = await runCli(['store', 'migrate', '--store', noUser.href], {
      env: { USER: undefined, PGUSER: undefined, LOGNAME: undefined },
    });
    assert.equal(result.code, 2, result.stderr);
    assertOneLineError(result);
    assert.match(result.stderr, /refused the login: .*\(the URL names no user\); put the database user in --store/);
    assert.doesNotMatch(result.stderr, /store migrate/);
  });
});
