/**
 * A whole deployment for the scale tests, as users start it: `listen --sync --queue` and
 * `ledgerhook worker` processes (the built CLI), Redis, a Postgres schema of its own, and a
 * multi-user API. Webhooks are signed by an encoder independent of ledgerhook.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { queueStatus } from '../../../src/queue/queue-status.js';
import { startCli, tempDir, type RunningCli } from '../../helpers/cli.js';
import { bodyHash, makeToken } from '../../../packages/webhooks/test/independent-jwt.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, testQueueName, type TestSchema } from './services.js';
import { waitUntil } from './wait.js';

export const SECRET = 'whsec_scale_test';

export async function sendWebhook(url: string, userId: string, entities: string[]): Promise<number> {
  const body = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities });
  const token = makeToken({
    claims: { iat: Math.floor(Date.now() / 1000), request_body_sha256: bodyHash(body) },
    secret: SECRET,
  });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-verification': token },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

export async function startRig(label: string, options: { baseUrl: string; tokens: Record<string, string> }) {
  const schema: TestSchema = await createTestSchema();
  const queueName = testQueueName(label);
  const dir = tempDir();
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(options.tokens));
  const queueFlags = ['--queue', REDIS_URL, '--queue-name', queueName];
  const listener = startCli(['listen', '--port', '0', '--json', '--sync', ...queueFlags, '--secret', SECRET]);
  const { url } = await listener.waitFor((line) => line?.kind === 'listening');
  const workers: RunningCli[] = [];
  const startWorker = async () => {
    const worker = startCli([
      'worker',
      ...queueFlags,
      '--store',
      schema.url,
      '--base-url',
      options.baseUrl,
      '--tokens',
      tokensFile,
      '--concurrency',
      '4',
      '--limit',
      '10',
      '--lock-seconds',
      '2',
      '--json',
    ]);
    workers.push(worker);
    await worker.waitFor((line) => line?.kind === 'worker-ready');
    return worker;
  };
  const db = new pg.Client({ connectionString: schema.url });
  await db.connect();
  return {
    url: url as string,
    queueName,
    schema,
    listener,
    workers,
    startWorker,
    /** Rows of one user's dataset, ordered by id. */
    async rows(userId: string, dataset: string): Promise<unknown[]> {
      const result = await db.query(
        'SELECT item FROM ledgerhook_items WHERE user_id = $1 AND dataset = $2 ORDER BY item_id::bigint',
        [userId, dataset],
      );
      return result.rows.map((row) => row.item);
    },
    /** Every delivery handed to the queue by the listener, and then every job run: nothing waits, nothing runs. */
    async drained(enqueueEvents: number, timeoutMs = 60_000): Promise<void> {
      await waitUntil(
        () =>
          listener.lines.filter((line) =>
            /"kind":"(queued|coalesced|unknown-entity|invalid-user|queue-failed)"/.test(line),
          ).length >= enqueueEvents,
        'the listener to enqueue every delivery',
        timeoutMs,
      );
      await waitUntil(
        async () => {
          const status = await queueStatus({ url: REDIS_URL, queueName });
          return status.waiting + status.active + status.delayed === 0;
        },
        'the queue to drain',
        timeoutMs,
        100,
      );
    },
    status: () => queueStatus({ url: REDIS_URL, queueName }),
    async close(): Promise<void> {
      await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));
      await listener.stop('SIGINT');
      await db.end();
      await schema.drop();
      await dropQueueKeys(queueName);
    },
  };
}
