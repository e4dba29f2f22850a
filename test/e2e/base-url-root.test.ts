/**
 * The commonest first slip: a base URL without /rest/v5. Every list then answers 404, which must be
 * said as the base URL's fault, never as "set paths.expense ..." (advice that would store a bad
 * setting). `config set baseUrl` warns about such a URL when it is stored.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startMockServer, type RunningMockServer } from '../../src/mock/mock-server.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

describe('a base URL that is not the API root', () => {
  let mock: RunningMockServer;
  let origin: string;
  before(async () => {
    mock = await startMockServer({ port: 0, items: 5 });
    origin = new URL(mock.url).origin; // http://127.0.0.1:PORT, without /rest/v5
  });
  after(() => mock.close());

  it('config set baseUrl warns when it has no /rest/vN segment, and stores it as given', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const set = await runInProcess(['config', 'set', 'baseUrl', origin], { env });
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, new RegExp(`warning: ${origin} has no /rest/vN segment`));
    assert.ok(set.stderr.includes(`ledgerhook config set baseUrl ${origin}/rest/v5`), set.stderr);
    assert.equal((await runInProcess(['config', 'get', 'baseUrl'], { env })).stdout.trim(), origin);
    const good = await runInProcess(['config', 'set', 'baseUrl', `${origin}/rest/v5`], { env });
    assert.equal(good.code, 0, good.stderr);
    assert.doesNotMatch(good.stderr, /warning/);
  });

  it('sync expenses says the base URL probably lacks /rest/v5, not "set paths.expense"', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_TOKEN: mock.token };
    await runInProcess(['config', 'set', 'baseUrl', origin], { env });
    // The built bin once; the other runs in-process (same definitions, command modules and error mapping).
    const result = await runCli(['sync', 'expenses', '--out', tempDir()], { env });
    assert.equal(result.code, 3, result.stderr);
    assertOneLineError(result);
    assert.match(
      result.stderr,
      new RegExp(`the base URL ${origin} has no /rest/vN segment, so it probably lacks /rest/v5`),
    );
    assert.ok(result.stderr.includes(`--base-url ${origin}/rest/v5`), result.stderr);
    assert.doesNotMatch(result.stderr, /paths\.expense/);
    const json = await runInProcess(['sync', 'expenses', '--out', tempDir(), '--json'], { env });
    assert.equal(JSON.parse(json.stdout).error.reason, 'base_url_not_api_root');
  });

  it('sync --all where every list answers 404: one line about the base URL, not 24 about entity paths', async () => {
    // Not our mock: a server under /rest/v5 that has no list at all (a wrong host or prefix).
    const server = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Not Found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/rest/v5`;
    try {
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_TOKEN: 'tok' };
      const result = await runInProcess(['sync', '--all', '--base-url', base, '--out', tempDir()], { env });
      assert.equal(result.code, 3, result.stderr);
      assertOneLineError(result);
      assert.match(
        result.stderr,
        /every one of the 24 datasets answered 404: the base URL .* is probably not the API root/,
      );
      assert.doesNotMatch(result.stderr, /paths\./);

      const local = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_TOKEN: mock.token };
      const bare = await runInProcess(['sync', '--all', '--base-url', origin, '--out', tempDir()], { env: local });
      assert.equal(bare.code, 3, bare.stderr);
      assertOneLineError(bare);
      assert.match(bare.stderr, /every one of the 24 datasets answered 404: .* \(it lacks \/rest\/v5\)/);
      assert.ok(bare.stderr.includes(`--base-url ${origin}/rest/v5`), bare.stderr);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
