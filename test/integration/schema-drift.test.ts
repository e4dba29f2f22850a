/**
 * Schema drift against a list server written in the test (not the mock, whose items never
 * change shape): a field appears, a type changes, a field leaves every item; the drift is reported
 * once, and `--contract freeze` fails the run with the data file and the state as they were.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { Agent } from 'undici';
import { SharedBackoff } from '../../src/http/retry-policy.js';
import { storeSync } from '../../src/queue/store-sync.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

type Item = Record<string, unknown> & { id: number };

/** Spec 4.3's envelope: offset cursors, the limit header, lastUpdatedDate filtering by change time. */
async function listServer() {
  let clock = Date.parse('2026-11-24T10:00:00.000Z');
  const items = new Map<number, { item: Item; at: number }>();
  const put = (item: Item) => {
    clock += 1000;
    items.set(item.id, { item, at: clock });
  };
  for (let id = 1; id <= 5; id += 1) put({ id, amount: id * 10, note: `item ${id}` });
  const http = createServer((request, response) => {
    const since = request.headers.lastupdateddate;
    const after = typeof since === 'string' ? Date.parse(since) : undefined;
    const limit = Number(request.headers.limit ?? 100);
    const offset = Number(request.headers.cursor ?? 0);
    const changed = [...items.values()].filter((entry) => after === undefined || entry.at > after);
    const body: Record<string, unknown> = {
      data: changed.slice(offset, offset + limit).map((entry) => entry.item),
      lastUpdatedDate: new Date(clock).toISOString(),
    };
    if (offset + limit < changed.length) body.cursor = String(offset + limit);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rest/v5`,
    put,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe('schema drift', () => {
  it('records the fields on the first sync, then reports a new field, new types and missing fields once each', async () => {
    const server = await listServer();
    const dir = tempDir();
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
    const sync = (full = false) =>
      syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { limit: 2, full } });
    const recorded = async () => (await store.list())[0]?.state.schema;
    try {
      assert.equal((await sync()).drift, undefined, 'the first sync records without reporting');
      assert.deepEqual(await recorded(), { amount: ['number'], id: ['number'], note: ['string'] });

      server.put({ id: 2, amount: 20, note: 'item 2', approvedBy: 'ann' });
      const added = await sync();
      assert.equal(added.mode, 'incremental');
      assert.deepEqual(added.drift, {
        added: ['approvedBy'],
        addedTypes: { approvedBy: ['string'] },
        missing: [],
        changed: [],
      });

      server.put({ id: 3, amount: '30.00', note: null });
      const changed = await sync();
      assert.deepEqual(changed.drift?.changed, [
        { field: 'amount', was: ['number'], now: ['number', 'string'] },
        { field: 'note', was: ['string'], now: ['null', 'string'] },
      ]);
      assert.deepEqual(changed.drift?.missing, [], 'an incremental run calls nothing missing');

      server.put({ id: 4, amount: 'forty', note: null, approvedBy: 'bo' });
      assert.equal((await sync()).drift, undefined, 'reported once: the recorded schema is the union');

      for (let id = 1; id <= 5; id += 1) server.put({ id, amount: id * 10 });
      const full = await sync(true);
      assert.deepEqual(full.drift?.missing, ['approvedBy', 'note']);
      assert.deepEqual(await recorded(), { amount: ['number', 'string'], id: ['number'] });
    } finally {
      await server.close();
    }
  });

  it('sync prints the drift under the dataset, --json carries it, and --contract freeze fails touching nothing', async () => {
    const server = await listServer();
    const config = tempDir();
    const out = tempDir();
    const env = { LEDGERHOOK_TOKEN: 't', LEDGERHOOK_CONFIG_DIR: config };
    // The frozen refusal is the spawned bin (exit 1, one line, nothing committed); the other runs are the
    // same command in process (runInProcess), without a cold start each.
    const args = (more: string[]) => ['sync', 'invoices', '--base-url', server.baseUrl, '--out', out, ...more];
    const sync = (...more: string[]) => runInProcess(args(more), { env });
    const files = () => [
      readFileSync(join(out, 'invoices.json'), 'utf8'),
      readFileSync(join(config, 'state.json'), 'utf8'),
    ];
    try {
      const first = await sync();
      assert.equal(first.code, 0, first.stderr);
      assert.doesNotMatch(first.stdout, /schema/);

      server.put({ id: 2, amount: 20, note: 'item 2', 'approved\u001bBy': 'ann' });
      const added = await sync();
      assert.equal(added.code, 0, added.stderr);
      const lines = added.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^✔ \/invoices: incremental/);
      assert.equal(lines[1], '  schema: new field "approved\\u001bBy" (string)', 'escaped: network text');

      server.put({ id: 3, amount: '30.00', note: 'item 3' });
      const before = files();
      const frozen = await runCli(args(['--contract', 'freeze']), { env });
      assert.equal(frozen.code, 1);
      assertOneLineError(frozen);
      assert.match(frozen.stderr, /\/invoices: .*"amount" was number, now number\|string.*nothing was committed/);
      assert.match(frozen.stderr, /without --contract freeze/);
      assert.equal(frozen.stdout, '');
      assert.deepEqual(files(), before, 'data file and state unchanged');

      const frozenJson = await sync('--contract', 'freeze', '--json');
      assert.equal(frozenJson.code, 1);
      const error = JSON.parse(frozenJson.stdout).error;
      assert.deepEqual([error.code, error.reason, error.exitCode], ['ERR_CHECK_FAILED', 'schema_drift', 1]);
      assert.deepEqual(files(), before);

      const accepted = await sync('--json');
      assert.equal(accepted.code, 0, accepted.stderr);
      const summary = JSON.parse(accepted.stdout);
      assert.deepEqual(summary.drift, {
        added: [],
        addedTypes: {},
        missing: [],
        changed: [{ field: 'amount', was: ['number'], now: ['number', 'string'] }],
      });
      assert.equal(summary.upserted, 1);

      server.put({ id: 4, amount: 'forty', note: 'item 4' });
      const again = await sync('--contract', 'freeze', '--json');
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).drift, undefined, 'accepted once, then the contract holds');

      const bad = await sync('--contract', 'loose');
      assert.equal(bad.code, 2);
    } finally {
      await server.close();
    }
  });

  it('listen --sync and the worker record the drift in sync-done; a malformed recorded schema is read as none', async () => {
    const server = await listServer();
    const dir = tempDir();
    const stateFile = join(dir, 'state.json');
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile });
    const events: WebhookSyncEvent[] = [];
    const webhooks = createWebhookSync({
      baseUrl: server.baseUrl,
      tokenFor: () => 't',
      store,
      onEvent: (event) => events.push(event),
    });
    const delivery = () =>
      webhooks.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['invoice'] })));
    const done = () => events.filter((event) => event.type === 'sync-done').at(-1);
    const dispatcher = new Agent();
    const worker = storeSync({ store, baseUrl: server.baseUrl });
    const job = { userId: 'u1', entity: 'invoice', path: '/invoices', filter: {} };
    const signal = new AbortController().signal;
    try {
      delivery();
      await webhooks.idle();
      server.put({ id: 1, amount: 10, note: 'item 1', approvedBy: 'ann' });
      delivery();
      await webhooks.idle();
      const event = done();
      assert.ok(event?.type === 'sync-done');
      assert.deepEqual(event.summary.drift?.added, ['approvedBy']);

      server.put({ id: 2, amount: true, note: 'item 2' });
      const summary = await worker({ job, token: 't', dispatcher, backoff: new SharedBackoff(), signal });
      assert.deepEqual(summary.drift?.changed, [{ field: 'amount', was: ['number'], now: ['boolean', 'number'] }]);

      const records = JSON.parse(readFileSync(stateFile, 'utf8'));
      for (const record of Object.values<Record<string, unknown>>(records.datasets)) record.schema = { amount: 'x' };
      writeFileSync(stateFile, JSON.stringify(records));
      server.put({ id: 3, amount: 'thirty', note: 'item 3' });
      const afresh = await worker({ job, token: 't', dispatcher, backoff: new SharedBackoff(), signal });
      assert.equal(afresh.mode, 'incremental', 'the state file is not refused');
      assert.equal(afresh.drift, undefined, 'recorded afresh, nothing reported');
      assert.deepEqual((await store.list())[0]?.state.schema, { amount: ['string'], id: ['number'], note: ['string'] });
    } finally {
      await dispatcher.close();
      await server.close();
    }
  });
});
