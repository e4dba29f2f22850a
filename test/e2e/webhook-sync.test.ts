import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ENTITIES } from '../../src/catalogue/entities.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';

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

const parse = (line: string) => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

/** Waits until the listener has taken no delivery and finished every sync for `quietMs`. */
async function settle(lines: string[], quietMs = 1500, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    const events = lines.map(parse).filter(Boolean);
    const starts = events.filter((e) => e.kind === 'sync-start').length;
    const ends = events.filter((e) => e.kind === 'sync-done' || e.kind === 'sync-failed').length;
    if (lines.length !== seen || starts !== ends) {
      seen = lines.length;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) {
      return;
    }
    await sleep(100);
  }
  throw new Error('the listener did not settle');
}

describe('webhooks drive the sync', () => {
  it(`keeps the local files equal to the mock through ${CHURN_SECONDS}s of churn, never overlapping two syncs of one dataset`, { timeout: (CHURN_SECONDS + 120) * 1000 }, async () => {
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    // The mock needs the receiver's URL and the receiver the mock's: reserve a port first.
    const port = await freePort();
    const mock = startCli(['mock', '--port', '0', '--json', '--items', '300', '--webhook-url', `http://127.0.0.1:${port}/`, '--secret', SECRET], { env });
    const { baseUrl, token } = await mock.waitFor((line) => line?.baseUrl);
    const syncing = startCli(['listen', '--port', String(port), '--json', '--secret', SECRET, '--sync', '--base-url', baseUrl, '--token', token, '--out', out, '--sync-concurrency', '3'], { env });
    await syncing.waitFor((line) => line?.kind === 'listening');
    const control = baseUrl.replace('/rest/v5', '');
    try {
      await fetch(`${control}/__mock/churn`, { method: 'POST', body: JSON.stringify({ seconds: 0.2 }) });
      await sleep(CHURN_SECONDS * 1000);
      const stopped = await fetch(`${control}/__mock/churn`, { method: 'POST', body: JSON.stringify({ seconds: 0 }) });
      assert.equal(stopped.status, 200);
      await settle(syncing.lines);

      const events = syncing.lines.map(parse).filter(Boolean);
      const deliveries = events.filter((e) => e.kind === 'delivery');
      assert.ok(deliveries.length > 50, `only ${deliveries.length} deliveries`);
      assert.ok(deliveries.every((d) => d.verdict.valid === true), 'every webhook verified');
      // Never two syncs of one dataset at once.
      const running = new Set<string>();
      for (const event of events) {
        if (event.kind === 'sync-start') {
          const key = `${event.userId} ${event.dataset}`;
          assert.ok(!running.has(key), `overlapping syncs of ${key}`);
          running.add(key);
        } else if (event.kind === 'sync-done' || event.kind === 'sync-failed') {
          running.delete(`${event.userId} ${ENTITIES.find((e) => e.name === event.entity)!.path}`);
        }
      }
      assert.equal(events.filter((e) => e.kind === 'sync-failed').length, 0, JSON.stringify(events.filter((e) => e.kind === 'sync-failed')));
      const synced = new Set(events.filter((e) => e.kind === 'sync-done').map((e) => e.dataset as string));
      assert.ok(synced.size >= 3, [...synced].join());
      for (const path of synced) {
        const truth = (await (await fetch(`${control}/__mock/dataset?path=${path}`)).json()) as { data: unknown[] };
        const local = JSON.parse(readFileSync(join(out, 'user_7f3c2a91', `${path.slice(1)}.json`), 'utf8'));
        assert.deepEqual(local, truth.data, `${path} equals the mock`);
      }
      assert.ok(events.some((e) => e.kind === 'lifecycle' && e.event === 'EXPENSE_ADDED' && /need tagging/.test(e.message)));
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
    const listen = startCli(['listen', '--port', '0', '--json', '--secret', SECRET, '--sync', '--base-url', baseUrl, '--tokens', tokens, '--out', out], { env });
    const { url } = await listen.waitFor((line) => line?.kind === 'listening');
    try {
      const sent = await runCli(['send-sample', 'ENTITY_UPDATE', '--user', 'alice', '--set', 'entities=["expense","unicornLedger"]', '--to', url, '--secret', SECRET]);
      assert.equal(sent.code, 0, sent.stderr);
      await listen.waitFor((e) => e?.kind === 'unknown-entity' && e.entity === 'unicornLedger');
      const done = await listen.waitFor((e) => e?.kind === 'sync-done' && e.userId === 'alice');
      assert.equal(done.mode, 'full');
      assert.equal(JSON.parse(readFileSync(join(out, 'alice', 'expenses.json'), 'utf8')).length, 40);
      const bob = await runCli(['send-sample', 'ENTITY_UPDATE', '--user', 'bob', '--entities', 'invoice', '--to', url, '--secret', SECRET]);
      assert.equal(bob.code, 0, 'a user without a token is still answered 200');
      await listen.waitFor((e) => e?.kind === 'no-token' && e.userId === 'bob');
      const viewed = await runCli(['send-sample', 'INVOICE_VIEWED', '--user', 'alice', '--to', url, '--secret', SECRET]);
      assert.equal(viewed.code, 0);
      const lifecycle = await listen.waitFor((e) => e?.kind === 'lifecycle');
      assert.equal(lifecycle.message, 'Tell the user a client opened an invoice');
    } finally {
      await listen.stop();
      await mock.stop();
    }
    const bad = await runCli(['listen', '--port', '0', '--sync', '--base-url', 'http://x/rest/v5', '--tokens', join(tempDir(), 'missing.json')]);
    assert.equal(bad.code, 2);
  });

  it('ledgerhook demo passes, tells what happened, and checks itself', async () => {
    const out = tempDir();
    const result = await runCli(['demo', '--out', out], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    for (const words of ['mock of the API', 'Full sync', 'Data changed', 'signature verified', 'incremental', '✔ equal', 'against your sandbox']) {
      assert.ok(result.stdout.includes(words), words);
    }
    const json = await runCli(['demo', '--json'], { timeoutMs: 60_000 });
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.datasets.length, 3);
  });
});
