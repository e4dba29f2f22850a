/**
 * `ledgerhook reconcile` as a user runs it: against a server written in the test, three
 * changes no webhook announced are found (exit 1, ids in --json), --repair applies them, and a
 * second run is equal (exit 0). Unusable input is one line and exit 2.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

describe('ledgerhook reconcile', () => {
  it('finds three planted differences, lists them, repairs them, and is then equal', async () => {
    const server = await startPagedListServer(120);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const common = [
      'invoices',
      '--base-url',
      server.baseUrl,
      '--token',
      't',
      '--out',
      join(dir, 'out'),
      '--limit',
      '50',
    ];
    try {
      const synced = await runInProcess(['sync', ...common], { env });
      assert.equal(synced.code, 0, synced.stderr);
      server.put({ id: 3, amount: 3000, type: 'BUSINESS' });
      server.remove(60);
      server.put({ id: 121, amount: 121, type: 'BUSINESS' });

      // reconcile's report from the built bin; the sync before it and the runs after it in-process.
      const found = await runCli(['reconcile', ...common], { env });
      assert.equal(found.code, 1, found.stderr);
      assert.match(found.stdout, /\/invoices: 1 missing, 1 extra, 1 different \(server 120, stored 120 in /);
      assert.match(found.stdout, /missing: 121\n/);
      assert.match(found.stdout, /extra: 60\n/);
      assert.match(found.stdout, /different: 3\n/);
      assert.match(found.stderr, /differed from the service; --json lists the ids; --repair applies the difference/);

      const json = await runInProcess(['reconcile', ...common, '--json'], { env });
      assert.equal(json.code, 1);
      const document = JSON.parse(json.stdout);
      assert.equal(document.ok, false);
      assert.equal(document.error.reason, 'reconcile_different');
      assert.deepEqual([document.missing, document.extra, document.different], [[121], [60], [3]]);

      const repaired = await runInProcess(['reconcile', ...common, '--repair'], { env });
      assert.equal(repaired.code, 1, repaired.stderr);
      assert.match(repaired.stdout, /repaired: 2 upserted, 1 removed, 120 in all/);
      // Repaired: the advice no longer asks for the --repair just given.
      assertOneLineError(repaired);
      assert.match(repaired.stderr, /differed from the service and now match it \(repaired\); nothing more to do/);
      assert.doesNotMatch(repaired.stderr, /--repair/);
      const file = JSON.parse(readFileSync(join(dir, 'out', 'invoices.json'), 'utf8')) as Array<{ id: number }>;
      assert.deepEqual(
        file,
        server.items().sort((a, b) => a.id - b.id),
      );
      const equal = await runInProcess(['reconcile', ...common], { env });
      assert.equal(equal.code, 0, equal.stderr);
      assert.match(equal.stdout, /\/invoices: equal \(server 120, stored 120/);

      server.put({ id: 5, amount: 5000, type: 'BUSINESS' });
      const repairedJson = JSON.parse(
        (await runInProcess(['reconcile', ...common, '--repair', '--json'], { env })).stdout,
      );
      assert.deepEqual([repairedJson.ok, repairedJson.error.reason], [false, 'reconcile_repaired']);
      assert.deepEqual(repairedJson.different, [5]);
    } finally {
      await server.close();
    }
  });

  it('says in one line that a dataset never synced has nothing to reconcile (exit 2)', async () => {
    const server = await startPagedListServer(3);
    const dir = tempDir();
    try {
      const result = await runInProcess(
        ['reconcile', 'invoices', '--base-url', server.baseUrl, '--token', 't', '--out', join(dir, 'out')],
        { env: { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') } },
      );
      assert.equal(result.code, 2);
      assertOneLineError(result);
      assert.match(
        result.stderr,
        /\/invoices has no synced copy .*nothing to reconcile; run `ledgerhook sync TARGET` first/,
      );
      assert.equal(server.pages, 0);
    } finally {
      await server.close();
    }
  });
});

describe('sync --watch --reconcile-every', () => {
  it('repairs on schedule what incremental reads cannot see, and says so in a reconcile line', async () => {
    const server = await startPagedListServer(20);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const watch = startCli(
      ['sync', 'invoices', '--base-url', server.baseUrl, '--token', 't', '--out', join(dir, 'out'), '--json'].concat([
        '--watch',
        '--interval',
        '100ms',
        '--reconcile-every',
        '1s',
      ]),
      { env },
    );
    try {
      await watch.waitFor((line) => line?.kind === 'round' && line.round === 1);
      server.putSilently({ id: 4, amount: 4444, type: 'BUSINESS' });
      const reconcile = await watch.waitFor(
        (line) => line?.kind === 'reconcile' && line.datasets[0]?.different?.length > 0,
        20_000,
      );
      assert.deepEqual(reconcile.datasets[0].different, [4]);
      assert.equal(reconcile.datasets[0].repaired.upserted, 1);
      const file = JSON.parse(readFileSync(join(dir, 'out', 'invoices.json'), 'utf8')) as Array<{
        id: number;
        amount: number;
      }>;
      assert.equal(file.find((item) => item.id === 4)?.amount, 4444);
      assert.equal((await watch.stop('SIGINT')).code, 130);
    } finally {
      if (watch.child.exitCode === null) await watch.stop('SIGKILL');
      await server.close();
    }
  });

  it('refuses --reconcile-every without --watch in one line (exit 2)', async () => {
    const result = await runInProcess([
      'sync',
      'invoices',
      '--reconcile-every',
      '6h',
      '--token',
      't',
      '--base-url',
      'http://127.0.0.1:9/',
    ]);
    assert.equal(result.code, 2);
    assertOneLineError(result);
    assert.match(result.stderr, /--reconcile-every goes with --watch/);
  });
});
