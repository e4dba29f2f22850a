/**
 * `worker --reconcile-every`: the queue's job scheduler fires reconcile-all, a worker
 * fans out one reconcile job per synced (user, dataset), and each compares with the service and
 * repairs what no webhook announced. Real Redis and Postgres; a list server written in the test.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { startCli, tempDir } from '../helpers/cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';

const skip = await servicesSkip();

describe('worker --reconcile-every', { skip }, () => {
  it('reconciles each synced dataset on the schedule and repairs a change no webhook announced', async () => {
    const schema = await createTestSchema();
    const server = await startPagedListServer(40);
    const queueName = testQueueName('reconcile');
    const store = new PostgresStore({ url: schema.url });
    const dir = tempDir();
    const tokens = join(dir, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ u1: 't' }));
    let worker: ReturnType<typeof startCli> | undefined;
    try {
      await syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/invoices', userId: 'u1', store });
      server.putSilently({ id: 9, amount: 9999, type: 'BUSINESS' });
      const args = ['worker', '--queue', REDIS_URL, '--queue-name', queueName, '--store', schema.url].concat([
        '--base-url',
        server.baseUrl,
        '--tokens',
        tokens,
        '--json',
        '--reconcile-every',
        '1s',
      ]);
      const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
      worker = startCli(args, { env });
      const ready = await worker.waitFor((line) => line?.kind === 'worker-ready', 20_000);
      assert.equal(ready.reconcileEveryMs, 1000);
      await worker.waitFor((line) => line?.kind === 'reconcile-scheduled' && line.queued === 1, 20_000);
      const done = await worker.waitFor((line) => line?.kind === 'reconcile-done', 20_000);
      assert.equal(done.userId, 'u1');
      assert.equal(done.dataset, '/invoices');
      assert.equal(done.different, 1);
      assert.equal(done.repaired, true);
      const items = (await store.items({ userId: 'u1', dataset: '/invoices' })) as Array<{
        id: number;
        amount: number;
      }>;
      assert.equal(items.find((item) => item.id === 9)?.amount, 9999);
      const [listed] = await store.list();
      assert.equal(listed?.activity?.missedChanges, 1);
      assert.equal((await worker.stop('SIGTERM')).code, 0);

      // The schedule belongs to the queue: it outlives the worker that set it until one removes it.
      const off = ['--reconcile-every', 'off'];
      worker = startCli(args.filter((arg) => arg !== '--reconcile-every' && arg !== '1s').concat(off), { env });
      const removed = await worker.waitFor((line) => line?.kind === 'worker-ready', 20_000);
      assert.equal(removed.reconcileEveryMs, null);
      assert.equal((await worker.stop('SIGTERM')).code, 0);
    } finally {
      if (worker && worker.child.exitCode === null) await worker.stop('SIGKILL');
      await store.close();
      await server.close();
      await schema.drop();
      await dropQueueKeys(queueName);
    }
  });
});
