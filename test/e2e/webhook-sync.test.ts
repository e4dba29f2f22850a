import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ENTITIES } from '@ledgerhook/webhooks';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody, type SampleBodyOptions } from '../../src/samples/sample-body.js';
import { datasetFileName, userDirName } from '../../src/store/identity.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_webhook_sync_test';
const CHURN_SECONDS = Number(process.env.LEDGERHOOK_TEST_CHURN_SECONDS ?? 60);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Posts the signed sample `send-sample` would send, in-process (send-sample has its own CLI tests). */
async function sendSample(url: string, options: SampleBodyOptions): Promise<number> {
  const delivery = await buildDelivery({ body: JSON.stringify(buildSampleBody(options)), secret: SECRET });
  return (await postWebhook({ url: new URL(url), ...delivery })).status;
}

const parse = (line: string) => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

const SOAK = process.env.LEDGERHOOK_SOAK === '1';
/** Mutations of the bounded run: mostly expenses, like a bank sync, and a few other datasets. */
const MUTATION_PATHS = ['/expenses', '/expenses', '/bankTransfers', '/expenses', '/invoices', '/revenues'];
// Two bursts by default; the six bursts of the full run only in the soak tier.
const MUTATIONS = SOAK ? 36 : 12;

/** Polls `condition` until it holds, failing after `timeoutMs` (a deadline, never a fixed wait). */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startPair(out: string, env: Record<string, string>) {
  // The mock needs the receiver's URL and the receiver the mock's: reserve a port first.
  const port = await freePort();
  const mock = startCli(
    [
      'mock',
      '--port',
      '0',
      '--json',
      '--items',
      '300',
      '--webhook-url',
      `http://127.0.0.1:${port}/`,
      '--secret',
      SECRET,
    ],
    { env },
  );
  const { baseUrl, token } = await mock.waitFor((line) => line?.baseUrl);
  const syncing = startCli(
    // biome-ignore format: one flag per pair reads better
    ['listen', '--port', String(port), '--json', '--secret', SECRET, '--sync', '--base-url', baseUrl, '--token', token,
      '--out', out, '--sync-concurrency', '3'],
    { env },
  );
  await syncing.waitFor((line) => line?.kind === 'listening');
  return { mock, syncing, control: baseUrl.replace('/rest/v5', '') };
}

/** Checks the listener's events, and that every synced dataset equals the mock once all syncs have settled. */
async function settleAndCheck(lines: string[], control: string, out: string): Promise<Set<string>> {
  const events = () => lines.map(parse).filter(Boolean);
  const fileOf = (path: string) => join(out, userDirName('user_7f3c2a91'), datasetFileName(path));
  const truth = async (path: string) =>
    ((await (await fetch(`${control}/__mock/dataset?path=${path}`)).json()) as { data: unknown[] }).data;
  const synced = () =>
    new Set(
      events()
        .filter((e) => e.kind === 'sync-done')
        .map((e) => e.dataset as string),
    );
  await until(async () => {
    const all = events();
    if (
      all.filter((e) => e.kind === 'sync-start').length !==
      all.filter((e) => e.kind.match(/^sync-(done|failed)$/)).length
    )
      return false;
    for (const path of synced()) {
      if (!existsSync(fileOf(path))) return false;
      if (JSON.stringify(JSON.parse(readFileSync(fileOf(path), 'utf8'))) !== JSON.stringify(await truth(path)))
        return false;
    }
    return synced().size >= 3;
  }, 'every synced dataset equals the mock');
  const all = events();
  const deliveries = all.filter((e) => e.kind === 'delivery');
  assert.ok(deliveries.length > 0);
  assert.ok(
    deliveries.every((d) => d.verdict.valid === true),
    'every webhook verified',
  );
  // Never two syncs of one dataset at once.
  const running = new Set<string>();
  for (const event of all) {
    if (event.kind === 'sync-start') {
      const key = `${event.userId} ${event.dataset}`;
      assert.ok(!running.has(key), `overlapping syncs of ${key}`);
      running.add(key);
    } else if (event.kind === 'sync-done' || event.kind === 'sync-failed') {
      running.delete(`${event.userId} ${ENTITIES.find((e) => e.name === event.entity)?.path}`);
    }
  }
  const failed = all.filter((e) => e.kind === 'sync-failed');
  assert.equal(failed.length, 0, JSON.stringify(failed));
  assert.ok(all.some((e) => e.kind === 'lifecycle' && e.event === 'EXPENSE_ADDED' && /need tagging/.test(e.message)));
  return synced();
}

describe('webhooks drive the sync', () => {
  it(`keeps the local files equal to the mock through ${MUTATIONS} mutations in bursts, never overlapping two syncs of one dataset`, async () => {
    const out = tempDir();
    const { mock, syncing, control } = await startPair(out, { LEDGERHOOK_CONFIG_DIR: tempDir() });
    try {
      // Bursts of 6 concurrent mutations: webhooks for one dataset arrive while its sync runs.
      for (let round = 0; round < MUTATIONS; round += 6)
        await Promise.all(
          MUTATION_PATHS.map((path, index) =>
            fetch(`${control}/__mock/mutate`, {
              method: 'POST',
              body: JSON.stringify({
                path,
                create: 1 + ((round + index) % 3),
                update: 2,
                delete: index % 4 === 0 ? 1 : 0,
                retype: path === '/expenses' ? 1 : 0,
              }),
            }).then((response) => assert.equal(response.status, 200)),
          ),
        );
      const synced = await settleAndCheck(syncing.lines, control, out);
      assert.ok(synced.has('/expenses') && synced.has('/invoices'), [...synced].join());
      assert.ok(
        syncing.lines.map(parse).some((e) => e?.kind === 'sync-coalesced'),
        'bursts for one dataset coalesced',
      );
    } finally {
      await syncing.stop();
      await mock.stop();
    }
  });

  it(`soak (LEDGERHOOK_SOAK=1): ${CHURN_SECONDS}s of timed churn`, {
    skip: !SOAK,
    timeout: (CHURN_SECONDS + 180) * 1000,
  }, async () => {
    const out = tempDir();
    const { mock, syncing, control } = await startPair(out, { LEDGERHOOK_CONFIG_DIR: tempDir() });
    try {
      await fetch(`${control}/__mock/churn`, { method: 'POST', body: JSON.stringify({ seconds: 0.2 }) });
      const churnUntil = Date.now() + CHURN_SECONDS * 1000;
      await until(() => Date.now() >= churnUntil, 'the soak has run its time', CHURN_SECONDS * 1000 + 10_000);
      const stopped = await fetch(`${control}/__mock/churn`, { method: 'POST', body: JSON.stringify({ seconds: 0 }) });
      assert.equal(stopped.status, 200);
      await settleAndCheck(syncing.lines, control, out);
    } finally {
      await syncing.stop();
      await mock.stop();
    }
  });

  it('uses a token map, reports users without a token and unknown entities, and is not held up by them', async () => {
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const mock = startCli(['mock', '--port', '0', '--json', '--items', '40'], { env });
    const { baseUrl, token } = await mock.waitFor((line) => line?.baseUrl);
    const tokens = join(tempDir(), 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ alice: token }));
    const listen = startCli(
      [
        'listen',
        '--port',
        '0',
        '--json',
        '--secret',
        SECRET,
        '--sync',
        '--base-url',
        baseUrl,
        '--tokens',
        tokens,
        '--out',
        out,
      ],
      { env },
    );
    const { url } = await listen.waitFor((line) => line?.kind === 'listening');
    try {
      const sent = await sendSample(url, {
        type: 'ENTITY_UPDATE',
        userId: 'alice',
        set: ['entities=["expense","unicornLedger"]'],
      });
      assert.equal(sent, 200);
      await listen.waitFor((e) => e?.kind === 'unknown-entity' && e.entity === 'unicornLedger');
      const done = await listen.waitFor((e) => e?.kind === 'sync-done' && e.userId === 'alice');
      assert.equal(done.mode, 'full');
      assert.equal(
        JSON.parse(readFileSync(join(out, userDirName('alice'), datasetFileName('/expenses')), 'utf8')).length,
        40,
      );
      const bob = await sendSample(url, { type: 'ENTITY_UPDATE', userId: 'bob', entities: ['invoice'] });
      assert.equal(bob, 200, 'a user without a token is still answered 200');
      await listen.waitFor((e) => e?.kind === 'no-token' && e.userId === 'bob');
      const viewed = await sendSample(url, { type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', userId: 'alice' });
      assert.equal(viewed, 200);
      const lifecycle = await listen.waitFor((e) => e?.kind === 'lifecycle');
      assert.equal(lifecycle.message, 'Tell the user a client opened an invoice');
    } finally {
      await listen.stop();
      await mock.stop();
    }
    const bad = await runInProcess([
      'listen',
      '--port',
      '0',
      '--sync',
      '--base-url',
      'http://x/rest/v5',
      '--tokens',
      join(tempDir(), 'missing.json'),
    ]);
    assert.equal(bad.code, 2);
  });

  it('ledgerhook demo passes, tells what happened, and checks itself', async () => {
    const out = tempDir();
    const result = await runCli(['demo', '--out', out], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    for (const words of [
      'mock of the API',
      'Full sync',
      'Data changed',
      'signature verified',
      'incremental',
      '✔ equal',
      'against your sandbox',
    ]) {
      assert.ok(result.stdout.includes(words), words);
    }
    // The same demo in-process, for its --json report.
    const json = await runInProcess(['demo', '--json']);
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.datasets.length, 3);
  });
});
