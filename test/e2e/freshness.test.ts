/**
 * Freshness as a user gets it: `listen --sync` records each webhook-caused run (with its
 * time from receipt to committed data), `reconcile --repair` records what no webhook announced, and
 * `ledgerhook freshness` reports both per user and dataset, with the deliveries from the capture.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

const SECRET = 'whsec_freshness';

async function deliver(url: string, userId: string): Promise<number> {
  const body = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: ['invoice'] });
  const delivery = await buildDelivery({ body, secret: SECRET });
  return (await postWebhook({ url: new URL(url), ...delivery })).status;
}

describe('ledgerhook freshness', () => {
  it('reports webhook runs, runs without a change, p50/p95, deliveries and the changes reconcile repaired', async () => {
    const server = await startPagedListServer(30);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const out = join(dir, 'out');
    const capture = join(dir, 'deliveries.jsonl');
    const listen = startCli(
      ['listen', '--port', '0', '--json', '--secret', SECRET, '--capture', capture, '--sync'].concat([
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
      assert.equal(await deliver(url, 'u1'), 200);
      await listen.waitFor((e) => e?.kind === 'sync-done' && e.run === 1);
      assert.equal(await deliver(url, 'u1'), 200); // nothing changed since: a run without a change
      await listen.waitFor((e) => e?.kind === 'sync-done' && e.run === 2);
      assert.equal((await listen.stop('SIGINT')).code, 130);

      // A change the service made without a webhook: only reconcile finds it.
      server.put({ id: 31, amount: 31, type: 'BUSINESS' });
      const reconcile = ['reconcile', 'invoices', '--user', 'u1', '--base-url', server.baseUrl, '--token', 't'];
      const repaired = await runInProcess([...reconcile, '--out', out, '--repair'], { env });
      assert.equal(repaired.code, 1, repaired.stderr);

      const report = await runInProcess(['freshness', '--capture', capture, '--json'], { env });
      assert.equal(report.code, 0, report.stderr);
      const [row] = JSON.parse(report.stdout).datasets;
      assert.equal(row.userId, 'u1');
      assert.equal(row.dataset, '/invoices');
      assert.equal(row.deliveries, 2);
      assert.equal(row.webhookRuns, 2);
      assert.equal(row.emptyWebhookRuns, 1);
      assert.equal(row.samples, 2);
      assert.equal(typeof row.p50Ms, 'number');
      assert.ok(row.p95Ms >= row.p50Ms);
      assert.equal(row.missedChanges, 1);
      assert.equal(row.lastReconcile.missing, 1);
      assert.equal(row.lastReconcile.repaired, true);

      // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
      const human = await runCli(['freshness', '--capture', capture], { env });
      assert.equal(human.code, 0, human.stderr);
      assert.match(
        human.stdout,
        /\/invoices\s+"u1"\s+2\s+2\s+1\s+\d+ ms\s+\d+ ms\s+1 in 1 run\s+\S+ 1 differed, repaired/,
      );
    } finally {
      if (listen.child.exitCode === null) await listen.stop('SIGKILL');
      await server.close();
    }
  });

  it('listen --sync --reconcile-every repairs what no webhook announced, and records it as missed', async () => {
    const server = await startPagedListServer(10);
    const dir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const listen = startCli(
      ['listen', '--port', '0', '--json', '--secret', SECRET, '--sync', '--reconcile-every', '1s'].concat([
        '--base-url',
        server.baseUrl,
        '--token',
        't',
        '--out',
        join(dir, 'out'),
      ]),
      { env },
    );
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      assert.equal(await deliver(url, 'u1'), 200);
      await listen.waitFor((e) => e?.kind === 'sync-done' && e.run === 1);
      server.putSilently({ id: 5, amount: 5555, type: 'BUSINESS' }); // no webhook, invisible to incremental reads
      const repaired = await listen.waitFor((e) => e?.kind === 'reconcile-done' && e.different === 1, 20_000);
      assert.equal(repaired.userId, 'u1');
      assert.equal(repaired.repaired, true);
      assert.equal((await listen.stop('SIGINT')).code, 130);
      const report = await runInProcess(['freshness', '--json'], { env });
      const [row] = JSON.parse(report.stdout).datasets;
      assert.equal(row.missedChanges, 1);
      assert.equal(row.lastReconcile.repaired, true);
    } finally {
      if (listen.child.exitCode === null) await listen.stop('SIGKILL');
      await server.close();
    }
  });
});
