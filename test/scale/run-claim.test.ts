/**
 * One run of a dataset at a time across workers: each queue run claims its dataset in Postgres
 * before it reads anything (postgres-run-claim.ts). BullMQ can hand one job to two workers (one
 * too busy to renew its lock is taken for dead), and a reconcile job may come during a sync: the
 * second run must make no request and wait. Real Redis and Postgres; a list server written in the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { storeSync } from '../../src/queue/store-sync.js';
import { SyncQueue } from '../../src/queue/sync-queue.js';
import { startSyncWorker, type SyncWorkerEvent } from '../../src/queue/sync-worker.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { assertOneLineError, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { waitUntil } from './helpers/wait.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';

const skip = await servicesSkip();
const SCALE_ENTRY = fileURLToPath(new URL('../../dist/api/scale.js', import.meta.url));
const invoices = { userId: 'u1', dataset: '/invoices' };

/** Another process holding the claim, as a worker would mid-run: resolves once it holds it. */
async function holderProcess(url: string) {
  const code = `import { PostgresStore } from ${JSON.stringify(SCALE_ENTRY)};
const store = new PostgresStore({ url: ${JSON.stringify(url)} });
const claim = await store.claimRun(${JSON.stringify(invoices)});
process.stdout.write(claim ? 'held\\n' : 'busy\\n');
setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  return { child, said: first.toString().trim() };
}

describe('a dataset has one run at a time across workers (the Postgres run claim)', { skip }, () => {
  it('a claim shuts out every other on its dataset until it is released or its process dies', async () => {
    const schema = await createTestSchema();
    const mine = new PostgresStore({ url: schema.url });
    const other = new PostgresStore({ url: schema.url });
    const server = await startPagedListServer(12);
    try {
      const held = await mine.claimRun(invoices);
      assert.ok(held);
      assert.equal(await other.claimRun(invoices), undefined, 'a second claim on the dataset is refused');
      // Other datasets and other users (a userId differing in case only is another user) are free.
      for (const free of [
        { userId: 'u1', dataset: '/expenses' },
        { userId: 'U1', dataset: '/invoices' },
        { userId: 'u1', dataset: '/invoices?type=PENDING' },
      ]) {
        const claim = await other.claimRun(free);
        assert.ok(claim, `${free.userId} ${free.dataset} is free`);
        await claim.release();
      }
      // The run holding the claim still writes (the data's own lock is another).
      const summary = await syncDataset({
        baseUrl: server.baseUrl,
        token: 't',
        path: '/invoices',
        userId: 'u1',
        store: mine,
      });
      assert.equal(summary.total, 12);
      await held.release();
      await held.release();
      const again = await other.claimRun(invoices);
      assert.ok(again, 'released, it can be claimed again');
      await again.release();

      // A worker that dies holding the claim: Postgres drops it with the connection.
      const holder = await holderProcess(schema.url);
      try {
        assert.equal(holder.said, 'held');
        assert.equal(await mine.claimRun(invoices), undefined);
      } finally {
        holder.child.kill('SIGKILL');
      }
      const claimed: Array<{ release(): Promise<void> }> = [];
      await waitUntil(async () => {
        const claim = await mine.claimRun(invoices);
        if (claim) claimed.push(claim);
        return claim !== undefined;
      }, 'the dead holder’s claim to drop');
      await claimed[0]?.release();
    } finally {
      await server.close();
      await Promise.all([mine.close(), other.close()]);
      await schema.drop();
    }
  });

  it('reconcile --repair into the store holds the claim too: while a worker runs the dataset, it refuses in one line', async () => {
    const schema = await createTestSchema();
    const store = new PostgresStore({ url: schema.url });
    const server = await startPagedListServer(12);
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 't');
    const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
    const args = ['reconcile', 'invoices', '--repair', '--user', 'u1', '--store', schema.url];
    args.push('--base-url', server.baseUrl, '--token-file', tokenFile);
    try {
      await syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/invoices', userId: 'u1', store });
      server.putSilently({ id: 5, amount: 5555, type: 'BUSINESS' });
      const held = await store.claimRun(invoices);
      assert.ok(held);
      const pagesBefore = server.pages;
      const busy = await runInProcess(args, { env });
      await held.release();
      assert.equal(busy.code, 2, busy.stderr);
      assertOneLineError(busy);
      assert.match(busy.stderr, /another run of \/invoices of user "u1" is in progress/);
      assert.equal(server.pages, pagesBefore, 'nothing read while the dataset was held');
      const repaired = await runInProcess(args, { env });
      assert.equal(repaired.code, 1, repaired.stderr);
      assert.match(repaired.stdout, /repaired: 1 upserted, 0 removed, 12 in all/);
    } finally {
      await server.close();
      await store.close();
      await schema.drop();
    }
  });

  it('a job whose dataset another run holds makes no request and waits its turn, using no attempt', async () => {
    const schema = await createTestSchema();
    const store = new PostgresStore({ url: schema.url });
    const elsewhere = new PostgresStore({ url: schema.url });
    const server = await startPagedListServer(12);
    const queueName = testQueueName('claim');
    const queue = new SyncQueue({ url: REDIS_URL, queueName });
    const events: SyncWorkerEvent[] = [];
    const worker = await startSyncWorker({
      url: REDIS_URL,
      queueName,
      tokenFor: () => 't',
      runSync: storeSync({ store, baseUrl: server.baseUrl }),
      // A busy job waits the spacing plus up to firstMs: both short here.
      limits: { runSpacingMs: 100 },
      retry: { firstMs: 200 },
      onEvent: (event) => events.push(event),
    });
    try {
      const held = await elsewhere.claimRun(invoices);
      assert.ok(held);
      await queue.connect();
      await queue.enqueueEntities('u1', ['invoice']);
      await waitUntil(
        () => events.filter((e) => e.type === 'dataset-busy').length >= 2,
        'the job to find the dataset busy twice',
      );
      const busy = events.find((e) => e.type === 'dataset-busy');
      assert.deepEqual(busy && { userId: busy.userId, dataset: busy.dataset }, { userId: 'u1', dataset: '/invoices' });
      assert.equal(server.pages, 0, 'no request while another run holds the dataset');
      assert.equal(events.filter((e) => e.type === 'sync-failed').length, 0);
      await held.release();
      await waitUntil(() => events.some((e) => e.type === 'sync-done'), 'the job to run once the dataset is free');
      const done = events.find((e) => e.type === 'sync-done');
      assert.equal(done?.type === 'sync-done' && done.summary.total, 12);
      const starts = events.filter((e) => e.type === 'sync-start');
      assert.ok(
        starts.every((e) => e.type === 'sync-start' && e.attempt === 1),
        'waiting used no attempt',
      );
    } finally {
      await worker.close();
      await queue.close();
      await server.close();
      await Promise.all([store.close(), elsewhere.close()]);
      await schema.drop();
      await dropQueueKeys(queueName);
    }
  });
});
