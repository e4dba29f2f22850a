/**
 * Tombstones and provenance as a user gets them, against a list server written in the
 * test that filters by type as spec 4.3 says: an expense retyped out of PENDING is a `left_filter`
 * tombstone, a deleted one a `deleted` tombstone, each with its last content; every change carries
 * its run, cause and page, and a webhook-caused one the delivery id.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

describe('sync --keep-deleted and ledgerhook history', () => {
  it('keeps a retyped PENDING expense as a left_filter tombstone and a deleted one as deleted', async () => {
    const server = await startPagedListServer(12);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const dataset = ['expenses', '--type', 'PENDING', '--out', join(dir, 'out')];
    const sync = ['sync', ...dataset, '--base-url', server.baseUrl, '--token', 't', '--keep-deleted'];
    try {
      assert.equal((await runInProcess(sync, { env })).code, 0);
      server.put({ id: 3, amount: 3, type: 'BUSINESS' }); // approved: it leaves PENDING
      server.remove(6); // deleted
      server.put({ id: 9, amount: 90, type: 'PENDING' }); // edited, still pending
      const second = await runInProcess([...sync, '--json'], { env });
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual([JSON.parse(second.stdout).upserted, JSON.parse(second.stdout).deleted], [1, 2]);

      const deleted = await runInProcess(['history', ...dataset, '--deleted', '--json'], { env });
      assert.equal(deleted.code, 0, deleted.stderr);
      const tombstones = JSON.parse(deleted.stdout).entries as Array<Record<string, unknown>>;
      assert.deepEqual(
        tombstones.map((entry) => [entry.id, entry.reason, (entry.item as { type: string }).type]).sort(),
        [
          [3, 'left_filter', 'PENDING'],
          [6, 'deleted', 'PENDING'],
        ],
      );
      // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
      const human = await runCli(['history', ...dataset, '--deleted'], { env });
      assert.match(human.stdout, /id 3 removed \(left_filter\) {2}by sync, run_/);

      const edited = await runInProcess(['history', ...dataset, '9', '--json'], { env });
      const [version] = JSON.parse(edited.stdout).entries;
      assert.equal(version.op, 'upsert');
      assert.equal(version.cause, 'sync');
      assert.equal(version.item.amount, 90);
      assert.match(version.page, /^2026-/);
      assert.equal(version.run, JSON.parse(second.stdout).runId);
    } finally {
      await server.close();
    }
  });

  it('reconcile --repair --keep-deleted tells a deletion from an item that left the filter, as sync does', async () => {
    const server = await startPagedListServer(8);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const dataset = ['expenses', '--type', 'PENDING', '--out', join(dir, 'out')];
    const api = ['--base-url', server.baseUrl, '--token', 't'];
    try {
      assert.equal((await runInProcess(['sync', ...dataset, ...api], { env })).code, 0);
      // Changes no webhook announced, found by a reconcile rather than a sync.
      server.put({ id: 3, amount: 3, type: 'BUSINESS' });
      server.remove(6);
      const repair = await runInProcess(['reconcile', ...dataset, ...api, '--repair', '--keep-deleted', '--json'], {
        env,
      });
      assert.equal(repair.code, 1, repair.stderr);
      assert.deepEqual(JSON.parse(repair.stdout).extra, [3, 6]);
      const deleted = await runInProcess(['history', ...dataset, '--deleted', '--json'], { env });
      const tombstones = JSON.parse(deleted.stdout).entries as Array<Record<string, unknown>>;
      assert.deepEqual(tombstones.map((entry) => [entry.id, entry.reason, entry.cause]).sort(), [
        [3, 'left_filter', 'reconcile'],
        [6, 'deleted', 'reconcile'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('records the delivery that caused a webhook-driven change', async () => {
    const server = await startPagedListServer(5);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const out = join(dir, 'out');
    const secret = 'whsec_history';
    const listen = startCli(
      ['listen', '--port', '0', '--json', '--secret', secret, '--sync'].concat([
        '--base-url',
        server.baseUrl,
        '--token',
        't',
        '--out',
        out,
      ]),
      { env },
    );
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      const send = async () => {
        const body = JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['invoice'] });
        return postWebhook({ url: new URL(url), ...(await buildDelivery({ body, secret })) });
      };
      await send();
      await listen.waitFor((e) => e?.kind === 'sync-done' && e.run === 1);
      server.put({ id: 2, amount: 222, type: 'BUSINESS' });
      await send();
      const delivery = await listen.waitFor(
        (e) =>
          e?.kind === 'delivery' &&
          e.verdict?.valid !== false &&
          listen.lines.filter((l) => l.includes('"kind":"delivery"')).length === 2,
      );
      await listen.waitFor((e) => e?.kind === 'sync-done' && e.run === 2);
      const history = await runInProcess(['history', 'invoices', '2', '--user', 'u1', '--out', out, '--json'], { env });
      assert.equal(history.code, 0, history.stderr);
      const [version] = JSON.parse(history.stdout).entries;
      assert.equal(version.cause, 'webhook');
      assert.equal(version.deliveryId, delivery.id);
    } finally {
      await listen.stop('SIGINT');
      await server.close();
    }
  });
});
