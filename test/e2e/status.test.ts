/**
 * `ledgerhook status`, as `gh auth status`: per environment which settings are set (never their
 * values) and where from, whether the base URL and token work (one request per distinct pair),
 * where state, data and captures live, which optional packages are installed; exit 0 when the chosen
 * environment is ready to sync, else 1 with what to do. Not our mock: a server that counts requests.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const GOOD = 'tok_status_good_0123456789';
const OTHER = 'tok_status_other_0123456789';
const SECRET = 'whsec_status_never_shown_0123';

describe('ledgerhook status', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  before(async () => {
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url} ${request.headers.authorization} limit=${request.headers.limit}`);
      const ok = request.headers.authorization === `Bearer ${GOOD}`;
      response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      response.end(ok ? '{"data":[],"lastUpdatedDate":"2026-01-01T00:00:00Z"}' : '{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function configured(tokens: { sandbox: string; production?: string }) {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const set = (args: string[], input = '') => runInProcess(['config', 'set', ...args], { env, input });
    await set(['baseUrl', base]);
    await set(['token', '-'], tokens.sandbox);
    await set(['webhookSecret', '-'], SECRET);
    if (tokens.production) {
      await set(['baseUrl', base, '--env', 'production']);
      await set(['token', '-', '--env', 'production'], tokens.production);
    }
    return env;
  }

  it('ready: exit 0; settings named but never their values; one request per distinct base URL and token', async () => {
    const env = await configured({ sandbox: GOOD, production: GOOD });
    requests.length = 0;
    // The built bin once; the other runs of status in-process (same definitions and command module).
    const result = await runCli(['status'], { env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(requests.length, 1, 'sandbox and production share the pair: one request');
    assert.equal(requests[0], `GET /rest/v5/expenses Bearer ${GOOD} limit=1`);
    assert.match(result.stdout, /^sandbox \(chosen\)$/m);
    assert.match(result.stdout, /✔ baseUrl +stored/);
    assert.match(result.stdout, /✔ token +stored/);
    assert.match(result.stdout, /✔ webhookSecret +stored/);
    assert.match(result.stdout, /✔ access +the base URL and token work/);
    assert.match(result.stdout, /^sandbox is ready to sync$/m);
    assert.match(result.stdout, /^state +.*state\.json/m);
    assert.match(result.stdout, /^captures +only where `listen --capture FILE` writes them/m);
    assert.match(result.stdout, /✔ pg \d+\.\d+\.\d+ +the Postgres store/);
    for (const value of [GOOD, SECRET, base])
      assert.ok(!result.stdout.includes(value) && !result.stderr.includes(value), value);

    const json = await runInProcess(['status', '--json'], { env });
    assert.equal(json.code, 0, json.stderr);
    const document = JSON.parse(json.stdout);
    assert.equal(document.ok, true);
    assert.equal(document.ready, true);
    assert.equal(document.environment, 'sandbox');
    const sandbox = document.environments.find((e: { name: string }) => e.name === 'sandbox');
    assert.deepEqual(sandbox.stored, ['baseUrl', 'token', 'webhookSecret']);
    assert.deepEqual([sandbox.baseUrl, sandbox.token, sandbox.webhookSecret], ['settings', 'settings', 'settings']);
    assert.equal(sandbox.access.ok, true);
    assert.ok(
      document.optionalPackages.some((p: { name: string; installed: boolean }) => p.name === 'pg' && p.installed),
    );
    for (const value of [GOOD, SECRET, base]) assert.ok(!json.stdout.includes(value), value);
  });

  it('a refused token: exit 1, the one error line says why and what to do; each distinct token checked once', async () => {
    const env = await configured({ sandbox: OTHER, production: GOOD });
    requests.length = 0;
    const result = await runInProcess(['status'], { env });
    assert.equal(result.code, 1, result.stderr);
    assertOneLineError(result);
    assert.equal(requests.length, 2);
    assert.match(
      result.stderr,
      /^error: sandbox is not ready to sync: .*answered 401: the access token was rejected; check --token/,
    );
    const production = await runInProcess(['status', '--env', 'production'], { env });
    assert.equal(production.code, 0, production.stderr);
    const json = await runInProcess(['status', '--json'], { env });
    const document = JSON.parse(json.stdout);
    assert.deepEqual(
      [json.code, document.ok, document.ready, document.error.reason],
      [1, false, false, 'not_ready_to_sync'],
    );
    const sandbox = document.environments.find((e: { name: string }) => e.name === 'sandbox');
    assert.deepEqual([sandbox.access.ok, sandbox.access.reason], [false, 'token_rejected']);
  });

  it('nothing set for the chosen environment: exit 1 naming the setting to set, and no request', async () => {
    const env = await configured({ sandbox: GOOD });
    requests.length = 0;
    const result = await runInProcess(['status', '--env', 'production'], { env });
    assert.equal(result.code, 1, result.stderr);
    assertOneLineError(result);
    assert.match(
      result.stderr,
      /production is not ready to sync: no base URL; run `ledgerhook config set baseUrl URL --env production`/,
    );
    assert.match(result.stdout, /^production \(chosen\)\n {2}✖ baseUrl +not set$/m);
    assert.equal(requests.filter((line) => !line.includes(GOOD)).length, 0);
    // A variable is named as such (and counts for every environment), its value never shown.
    const viaVariable = await runInProcess(['status', '--env', 'production'], {
      env: { ...env, LEDGERHOOK_BASE_URL: base, LEDGERHOOK_TOKEN: GOOD },
    });
    assert.equal(viaVariable.code, 0, viaVariable.stderr);
    assert.match(viaVariable.stdout, /^variables +.*LEDGERHOOK_BASE_URL, LEDGERHOOK_TOKEN/m);
    assert.match(viaVariable.stdout, /✔ token +from its LEDGERHOOK_ variable/);
  });
});
