/**
 * `ledgerhook sync` as a user meets the server's timestamps (docs/syncing.md, "What the server's
 * timestamps may do"): a stamp from the future is one line, exit 3, nothing written; the allowance
 * is the maxStampAhead setting; a stamp that went back is stored with a warning naming both.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startStampedListServer } from '../helpers/stamped-list-server.js';

describe('sync and the server timestamps', () => {
  it('9999-12-31: exit 3, one line naming the stamp, the Date header and the setting; no data, no state', async () => {
    const server = await startStampedListServer({ stamp: '9999-12-31T23:59:59.999Z' });
    const dir = tempDir();
    const env = { LEDGERHOOK_TOKEN: 't', LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const args = ['sync', 'invoices', '--base-url', server.baseUrl, '--out', join(dir, 'out')];
    try {
      // The built bin once; the runs after it in-process (same definitions, command modules and error mapping).
      const refused = await runCli(args, { env });
      assert.equal(refused.code, 3, refused.stderr);
      assertOneLineError(refused);
      assert.match(
        refused.stderr,
        /answered lastUpdatedDate "9999-12-31T23:59:59\.999Z", \d+ days ahead of its own Date header \("[A-Z][a-z]{2}, .* GMT"\): more than the 24h allowed \(the maxStampAhead setting\); nothing was committed; .*`ledgerhook config set maxStampAhead 48h`/,
      );
      assert.equal(existsSync(join(dir, 'out', 'invoices.json')), false);
      const json = JSON.parse((await runInProcess([...args, '--json'], { env })).stdout);
      assert.deepEqual([json.ok, json.error.reason, json.error.exitCode], [false, 'stamp_ahead', 3]);

      // The allowance is a setting, checked when set and named when it refuses.
      const bad = await runInProcess(['config', 'set', 'maxStampAhead', 'soon', '--env', 'sandbox'], { env });
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /not a duration such as 24h/);
      server.setStamp(new Date(Date.now() + 2 * 3_600_000).toISOString());
      assert.equal((await runInProcess(['config', 'set', 'maxStampAhead', '1h', '--env', 'sandbox'], { env })).code, 0);
      const strict = await runInProcess([...args, '--env', 'sandbox'], { env });
      assert.equal(strict.code, 3, strict.stderr);
      assert.match(strict.stderr, /more than the 1h allowed \(the maxStampAhead setting\)/);
      assert.equal((await runInProcess(['config', 'set', 'maxStampAhead', '3h', '--env', 'sandbox'], { env })).code, 0);
      const allowed = await runInProcess([...args, '--env', 'sandbox'], { env });
      assert.equal(allowed.code, 0, allowed.stderr);
    } finally {
      await server.close();
    }
  });

  it("a stamp behind the stored one: exit 0, a warning naming both, the server's stored, --json says stampBehind", async () => {
    const server = await startStampedListServer({ stamp: '2026-11-24T10:00:00.000Z' });
    const dir = tempDir();
    const env = { LEDGERHOOK_TOKEN: 't', LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const args = ['sync', 'invoices', '--base-url', server.baseUrl, '--out', join(dir, 'out')];
    try {
      assert.equal((await runInProcess(args, { env })).code, 0);
      server.setStamp('2020-01-01T00:00:00.000Z');
      server.put(3, 3);
      const behind = await runInProcess(args, { env });
      assert.equal(behind.code, 0, behind.stderr);
      assert.match(
        behind.stderr,
        /^warning: \/invoices: the server's lastUpdatedDate "2020-01-01T00:00:00\.000Z" is behind the stored "2026-11-24T10:00:00\.000Z": its clock or its data went back; stored the server's, so the next run reads the changes since then again \(nothing between them is skipped\)$/m,
      );
      assert.deepEqual(
        JSON.parse(readFileSync(join(dir, 'out', 'invoices.json'), 'utf8')).map((item: { id: number }) => item.id),
        [1, 2, 3],
      );
      server.setStamp('2019-06-01T00:00:00.000Z');
      const json = JSON.parse((await runInProcess([...args, '--json'], { env })).stdout);
      assert.equal(json.ok, true);
      assert.deepEqual(json.stampBehind, { received: '2019-06-01T00:00:00.000Z', stored: '2020-01-01T00:00:00.000Z' });
      assert.equal(json.lastUpdatedDate, '2019-06-01T00:00:00.000Z');
      assert.equal(server.sent.at(-1), '2020-01-01T00:00:00.000Z');
    } finally {
      await server.close();
    }
  });
});
