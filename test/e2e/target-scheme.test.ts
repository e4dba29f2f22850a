import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { resolveTarget } from '../../src/delivery/target.js';
import { BIN, tempDir } from '../helpers/cli.js';

/** A scheme other than http and https is refused, never read as a host of that name (nothing is sent). */
describe('a target with another scheme is one clear line, not a host named after the scheme', () => {
  for (const [typed, problem] of [
    ['unix:/tmp/x', /names the scheme "unix" \(unix sockets are not supported\): only http and https/],
    ['UNIX:/var/run/app.sock', /names the scheme "unix"/],
    ['unix:///tmp/x', /only http and https targets are supported, got unix/],
    ['mailto:ops@example.com', /names the scheme "mailto"/],
    ['file:hooks.sock', /names the scheme "file"/],
    ['http:127.0.0.1:4000', /is not a URL: write it http:\/\/HOST\[:PORT\]\/PATH/],
  ] as const)
    it(`${typed} is refused`, () =>
      assert.throws(
        () => resolveTarget(typed),
        (error: Error & { code: string; details: { reason: string } }) => {
          assert.equal(error.code, 'ERR_USAGE');
          assert.equal(error.details.reason, 'invalid_target');
          assert.match(error.message, problem);
          return true;
        },
      ));

  for (const [typed, url] of [
    ['localhost:4000', 'http://localhost:4000/'],
    ['example.com:8080/hooks', 'http://example.com:8080/hooks'],
    ['localhost:4000?x=1', 'http://localhost:4000/?x=1'],
    ['localhost:', 'http://localhost/'],
  ] as const)
    it(`host:port ${typed} is still ${url}`, () => assert.equal(resolveTarget(typed).href, url));

  it('send-sample --to unix:/tmp/x exits 2 with that line (run without a network: nothing could leave)', (t) => {
    const probe = spawnSync('unshare', ['-rn', 'true']);
    if (probe.status !== 0) {
      t.skip('unshare -rn is not available here: the in-process checks above still hold');
      return;
    }
    const result = spawnSync(
      'unshare',
      ['-rn', process.execPath, BIN, 'send-sample', 'ENTITY_UPDATE', '--to', 'unix:/tmp/x'],
      {
        env: {
          ...process.env,
          NO_COLOR: '1',
          LEDGERHOOK_CONFIG_DIR: tempDir(),
          LEDGERHOOK_WEBHOOK_SECRET: 'whsec_scheme',
        },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /"unix:\/tmp\/x" names the scheme "unix" \(unix sockets are not supported\)/);
  });
});
