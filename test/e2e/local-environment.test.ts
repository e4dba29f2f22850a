import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_MOCK_PORT } from '../../src/defaults.js';
import { startMockServer } from '../../src/index.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** The mock on its default port, or undefined (said loudly) when something else holds the port. */
async function mockOnDefaultPort() {
  try {
    return await startMockServer({ port: DEFAULT_MOCK_PORT, items: 12 });
  } catch (error) {
    console.log(
      `# SKIP: port ${DEFAULT_MOCK_PORT} is taken (${(error as Error).message}); the local-default checks need it`,
    );
    return undefined;
  }
}

describe('a first run with nothing to set up: the local environment', () => {
  it('listen and send-sample with no config share a local development secret: the delivery verifies', async () => {
    const config = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const listen = startCli(['listen', '--port', '0', '--json'], { env });
    try {
      const ready = await listen.waitFor((line) => line?.kind === 'listening');
      assert.equal(ready.verifying, true, JSON.stringify(ready));
      const file = join(config, 'local-webhook.secret');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const secret = readFileSync(file, 'utf8').trim();
      assert.match(secret, /^whsec_[0-9a-f]{64}$/);
      assert.match(listen.stderr(), /created a local development webhook secret in .*local-webhook\.secret/);
      const port = new URL(ready.url).port;
      // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
      const sent = await runCli(['send-sample', 'ENTITY_UPDATE', '--to', `http://127.0.0.1:${port}/`], { env });
      assert.equal(sent.code, 0, sent.stderr);
      const delivery = await listen.waitFor((line) => line?.kind === 'delivery');
      assert.equal(delivery.verdict.valid, true, JSON.stringify(delivery));
      assert.equal(delivery.verdict.status, 200);
      // listen says it once, for the app (as stripe listen says its whsec_); nothing else prints it.
      assert.equal(ready.localWebhookSecret, secret);
      assert.equal(listen.lines.filter((line) => line.includes(secret)).length, 1);
      for (const output of [listen.stderr(), sent.stderr, sent.stdout])
        assert.ok(!output.includes(secret), 'the development secret is printed by listen only');
    } finally {
      await listen.stop();
    }
  });

  it('sandbox and production never fall back to the local secret; once sandbox is configured it is the default', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    assert.equal((await runInProcess(['sign', '--data', '{}'], { env })).code, 0, 'local: made and used');
    for (const args of [
      ['sign', '--data', '{}', '--env', 'sandbox'],
      ['sign', '--data', '{}', '--env', 'production'],
    ]) {
      const refused = await runInProcess(args, { env });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /no webhook secret for (sandbox|production)/);
    }
    assert.equal(
      (await runInProcess(['config', 'set', 'baseUrl', 'https://sandbox.example.com/rest/v5'], { env })).code,
      0,
    );
    const nowSandbox = await runInProcess(['sign', '--data', '{}'], { env });
    assert.equal(nowSandbox.code, 2, nowSandbox.stderr);
    assert.match(nowSandbox.stderr, /no webhook secret for sandbox/);
  });

  it('sync expenses --type PENDING works against the mock with no config; with sandbox configured the error names --env local', async () => {
    const mock = await mockOnDefaultPort();
    if (!mock) return;
    try {
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
      const out = tempDir();
      const local = await runInProcess(['sync', 'expenses', '--type', 'PENDING', '--out', out, '--json'], { env });
      assert.equal(local.code, 0, local.stderr);
      assert.match(local.stderr, /using the local environment/);
      const explicit = await runInProcess(['sync', 'expenses', '--type', 'PENDING', '--env', 'local', '--out', out], {
        env,
      });
      assert.equal(explicit.code, 0, explicit.stderr);
      assert.match(explicit.stdout, /incremental/);
      await runInProcess(['config', 'set', 'headerName', 'Service-Verification'], { env });
      const sandbox = await runInProcess(['sync', 'expenses', '--type', 'PENDING', '--out', out], { env });
      assert.equal(sandbox.code, 2, sandbox.stderr);
      assert.match(sandbox.stderr, /no base URL for sandbox.*ledgerhook mock is answering at .*add --env local/);
    } finally {
      await mock.close();
    }
  });
});
