/**
 * The Postgres store keeps what jsonb cannot hold, byte-exact, as the file store does: a string with
 * \u0000 or a lone surrogate, in any value, in a key or in an id, on every path that writes items
 * (COPY, an out-of-order page, a merge over rows, a resumable read continued, an incremental change
 * with its history and tombstones, a document) and every path that reads them back (the rows, the
 * history, the tombstones, reconcile). An item that truly cannot be stored (an id too long for any
 * index entry) is a permanent failure that names it: exit 3, and the worker fails its job at once
 * instead of retrying it for ever.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'node:test';
import type { StoredItem } from '../../src/store/dataset-store.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startRawListServer } from '../helpers/raw-list-server.js';
import { createTestSchema, DATABASE_URL, servicesSkip, type TestSchema } from './helpers/services.js';
import { checkpointAt, ref, state, useTestStore } from './helpers/store-fixtures.js';
import { sendWebhook, startRig } from './helpers/scale-rig.js';
import { waitUntil } from './helpers/wait.js';

const skip = await servicesSkip();

/** Everything jsonb refuses or would change, and what COPY's text format escapes. */
const odd = (n: number) => ({
  n,
  nul: 'a\u0000b',
  lone: 'x\ud800y',
  low: '\udfff',
  pair: '😀 ünï',
  escapes: 'back\\slash "quoted" \t\n\r \\N',
  'key\u0000nul': 1,
  '\ud801': 'a lone surrogate as a key',
  nested: [{ deeper: '\u0000' }],
});
const ODD_IDS = ['"quoted', 'id\u0000nul', 'plain', '\ud800'];

async function readBack(store: PostgresStore, user: ReturnType<typeof ref>): Promise<unknown[]> {
  const streamed: StoredItem[] = [];
  for await (const item of store.readItems(user)) streamed.push(item);
  const listed = await store.items(user);
  assert.deepEqual(
    [...streamed].sort((a, b) => String(a.id).localeCompare(String(b.id))),
    [...listed].sort((a: any, b: any) => String(a.id).localeCompare(String(b.id))),
  );
  return listed;
}

const byId = (items: unknown[]) =>
  [...items].sort((a: any, b: any) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));

describe('PostgresStore keeps any text byte-exact', { skip }, () => {
  let schema: TestSchema;
  let store: PostgresStore;
  useTestStore((opened) => {
    ({ schema, store } = opened);
  });

  it('on a full read: copied, upserted out of order, merged over rows; read back as written', async () => {
    const user = ref('user-exact-full');
    const expected = [
      { id: 1, ...odd(1) },
      { id: 2, ...odd(2), again: true },
      ...ODD_IDS.map((id, n) => ({ id, ...odd(n) })),
    ];
    for (const round of [1, 2]) {
      const load = await store.beginFull(user);
      await load.add([
        { id: 1, ...odd(1) },
        { id: 2, ...odd(2) },
      ]);
      await load.add(ODD_IDS.map((id, n) => ({ id, ...odd(n) }))); // ascending: copied
      await load.add([{ id: 2, ...odd(2), again: true }]); // out of order: upserted
      assert.equal((await load.commit(state(`2026-01-0${round}T00:00:00.000Z`))).total, 6);
      // Round 2 goes over the rows of round 1: staged and merged.
      assert.deepEqual(byId(await readBack(store, user)), byId(expected), `round ${round}`);
    }
    const keys = await schema.query(`SELECT item_id FROM ${schema.name}.ledgerhook_items WHERE user_id = $1`, [
      user.userId,
    ]);
    assert.deepEqual(keys.rows.map((row) => row.item_id).sort(), [
      '"\\"quoted"',
      '"\\ud800"',
      '"id\\u0000nul"',
      '1',
      '2',
      'plain',
    ]);
  });

  it('on an incremental change, in the history and the tombstones', async () => {
    const user = ref('user-exact-changes');
    const load = await store.beginFull(user);
    await load.add(ODD_IDS.map((id, n) => ({ id, ...odd(n) })));
    await load.commit(state('2026-01-01T00:00:00.000Z'));
    const origin = {
      run: 'r1',
      at: '2026-01-02T00:00:00.000Z',
      cause: 'sync' as const,
      pageOf: new Map(),
      firstPage: '2026-01-02T00:00:00.000Z',
    };
    const result = await store.applyChanges(
      user,
      {
        upserts: [{ id: 'plain', ...odd(9), changed: '\u0000' }],
        deletedIds: ['\ud800', 'id\u0000nul'],
        origin,
        keepDeleted: true,
      },
      state('2026-01-02T00:00:00.000Z', 'incremental'),
    );
    assert.deepEqual(result, { total: 2, upserted: 1, removed: 2 });
    assert.deepEqual(
      byId(await readBack(store, user)),
      byId([
        { id: '"quoted', ...odd(0) },
        { id: 'plain', ...odd(9), changed: '\u0000' },
      ]),
    );
    const history = await store.history(user, 'plain');
    assert.deepEqual(history.at(-1)?.item, { id: 'plain', ...odd(9), changed: '\u0000' });
    const tombstones = await store.tombstones(user);
    assert.deepEqual(
      byId(tombstones.map((entry) => entry.item)),
      byId([
        { id: 'id\u0000nul', ...odd(1) },
        { id: '\ud800', ...odd(3) },
      ]),
    );
    assert.deepEqual(tombstones.map((entry) => entry.id).sort(), ['id\u0000nul', '\ud800'].sort());
  });

  it('on a resumable read continued by a later run, and in a document', async () => {
    const user = ref('user-exact-resume');
    const first = await store.beginFull(user, { resumable: true });
    await first.add([{ id: 1, ...odd(1) }]);
    await first.add([{ id: '\ud800', ...odd(2) }]);

    await first.checkpoint?.(checkpointAt(user, 2, 1));
    await first.abort({ keepCheckpoint: true });
    const taken = await store.takeCheckpoint(user);
    assert.equal(taken?.damaged, undefined);
    assert.equal(taken?.checkpoint?.pages, 2);
    const second = await store.beginFull(user, { resume: taken });
    await second.add([{ id: 'id\u0000nul', ...odd(3) }]);
    await second.commit(state('2026-01-01T00:00:00.000Z'));
    assert.deepEqual(
      byId(await readBack(store, user)),
      byId([
        { id: 1, ...odd(1) },
        { id: '\ud800', ...odd(2) },
        { id: 'id\u0000nul', ...odd(3) },
      ]),
    );

    const doc = ref('user-exact-doc', '/userTaxSetup');
    await store.saveDocument(doc, odd(4), state('2026-01-01T00:00:00.000Z', 'document'));
    assert.deepEqual(await store.items(doc), [odd(4)]);
  });
});

/** The same items as the service writes them: JSON text with \u escapes. */
const asServed = (id: unknown, n: number) => JSON.stringify({ id, ...odd(n) });

describe('sync, reconcile and history into Postgres with values jsonb cannot hold', { skip }, () => {
  it('syncs in full and incrementally, reconciles equal, and history shows them as written', async () => {
    const schema = await createTestSchema();
    const api = await startRawListServer();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: schema.url };
    const flags = ['--base-url', api.baseUrl, '--token', api.token, '--limit', '2', '--json'];
    const rows = async () =>
      (await schema.query(`SELECT item FROM ${schema.name}.ledgerhook_items`)).rows.map((row) => row.item);
    try {
      for (const [n, id] of [1, 2, ...ODD_IDS].entries()) api.put(String(id), asServed(id, n));
      // The first sync is the spawned bin; the runs after it are the same commands in process.
      const full = await runCli(['sync', '/expenses', ...flags], { env });
      assert.equal(full.code, 0, full.stderr);
      assert.equal(JSON.parse(full.stdout).total, 6);
      const served = () => [1, 2, ...ODD_IDS].map((id, n) => JSON.parse(asServed(id, n)));
      assert.deepEqual(byId(await rows()), byId(served()));

      api.put('plain', JSON.stringify({ id: 'plain', ...odd(7), more: 'x\u0000' }));
      api.remove('\ud800', JSON.stringify('\ud800'));
      const incremental = await runInProcess(['sync', '/expenses', ...flags, '--keep-deleted'], { env });
      assert.equal(incremental.code, 0, incremental.stderr);
      assert.deepEqual(JSON.parse(incremental.stdout).mode, 'incremental');
      const now = [1, 2, ...ODD_IDS]
        .map((id, n) => (id === 'plain' ? { id, ...odd(7), more: 'x\u0000' } : { id, ...odd(n) }))
        .filter((item) => item.id !== '\ud800');
      assert.deepEqual(byId(await rows()), byId(now));

      const reconcile = await runInProcess(['reconcile', '/expenses', ...flags], { env });
      assert.equal(reconcile.code, 0, reconcile.stdout + reconcile.stderr);
      assert.equal(JSON.parse(reconcile.stdout).equal, true);

      const history = await runInProcess(['history', '/expenses', 'plain', '--json'], { env });
      assert.equal(history.code, 0, history.stderr);
      assert.deepEqual(JSON.parse(history.stdout).entries.at(-1).item, { id: 'plain', ...odd(7), more: 'x\u0000' });
      const deleted = await runInProcess(['history', '/expenses', '--deleted', '--json'], { env });
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(
        JSON.parse(deleted.stdout).entries.map((entry: any) => entry.item),
        [{ id: '\ud800', ...odd(5) }],
      );
    } finally {
      await api.close();
      await schema.drop();
    }
  });

  it('an item no index entry can hold fails the sync by name, exit 3, and keeps nothing of the read', async () => {
    const schema = await createTestSchema();
    const api = await startRawListServer();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: schema.url };
    try {
      api.put('a', '{"id":1}');
      api.put('long', JSON.stringify({ id: `long-${'x'.repeat(3000)}` }));
      const result = await runInProcess(['sync', '/expenses', '--base-url', api.baseUrl, '--token', api.token], {
        env,
      });
      assert.equal(result.code, 3, result.stderr);
      assertOneLineError(result);
      assert.match(
        result.stderr,
        /the item with the id "long-x+… cannot be stored in Postgres: its id takes 3005 bytes/,
      );
      const stored = await schema.query(`SELECT count(*) AS n FROM ${schema.name}.ledgerhook_items`);
      assert.equal(Number(stored.rows[0]?.n), 0);
    } finally {
      await api.close();
      await schema.drop();
    }
  });
});

describe('an item a database truly cannot hold', { skip }, () => {
  it('a character the database encoding lacks fails the sync by name (exit 3), never "run store migrate"', async (t) => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const name = `lh_test_latin1_${randomBytes(4).toString('hex')}`;
    try {
      await admin.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`);
    } catch (error) {
      await admin.end();
      t.skip(`cannot create a LATIN1 database here: ${(error as Error).message}`);
      return;
    }
    const api = await startRawListServer();
    try {
      const url = new URL(DATABASE_URL);
      url.pathname = `/${name}`;
      api.put('a', '{"id":1,"note":"plain"}');
      api.put('b', '{"id":2,"note":"\\ud83d\\ude00 is not Latin-1"}');
      const result = await runCli(['sync', '/expenses', '--base-url', api.baseUrl, '--token', api.token, '--json'], {
        env: { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: url.href },
      });
      assert.equal(result.code, 3, result.stderr);
      assertOneLineError(result);
      const error = JSON.parse(result.stdout).error;
      assert.equal(error.reason, 'item_not_storable');
      assert.match(error.message, /cannot hold a value of this data: .*LATIN1.*\(row 2 of the load\)/);
      assert.doesNotMatch(error.message, /store migrate|is not Latin-1/);
    } finally {
      await api.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    }
  });
});

describe('the worker with values jsonb cannot hold', { skip }, () => {
  it('syncs them byte-exact; an item that cannot be stored fails its job at once, never retried', {
    timeout: 60_000,
  }, async () => {
    const api = await startRawListServer();
    for (const [n, id] of [1, ...ODD_IDS].entries()) api.put(String(id), asServed(id, n));
    const bad = await startRawListServer('bad-token');
    bad.put('long', JSON.stringify({ id: `long-${'x'.repeat(3000)}` }));
    // One API for both users: the worker sends each user's token, and each server knows one.
    // The two rigs (each its listener, worker, queue and schema) start and run side by side.
    const [rig, badRig] = await Promise.all([
      startRig('exact', { baseUrl: api.baseUrl, tokens: { good: api.token } }),
      startRig('exact-bad', { baseUrl: bad.baseUrl, tokens: { bad: 'bad-token' } }),
    ]);
    try {
      const [worker, badWorker] = await Promise.all([rig.startWorker(), badRig.startWorker()]);
      assert.equal(await sendWebhook(rig.url, 'good', ['expense']), 200);
      assert.equal(await sendWebhook(badRig.url, 'bad', ['expense']), 200);
      await waitUntil(() => worker.lines.some((line) => line.includes('"kind":"sync-done"')), 'the sync to finish');
      assert.deepEqual(
        byId(
          (
            await rig.schema.query(`SELECT item FROM ${rig.schema.name}.ledgerhook_items WHERE user_id = 'good'`)
          ).rows.map((row) => row.item),
        ),
        byId([1, ...ODD_IDS].map((id, n) => JSON.parse(asServed(id, n)))),
      );

      await waitUntil(() => badWorker.lines.some((line) => line.includes('"kind":"sync-failed"')), 'the job to fail');
      const failed = badWorker.lines.map((line) => JSON.parse(line)).find((line) => line.kind === 'sync-failed');
      assert.equal(failed.willRetry, false, JSON.stringify(failed));
      assert.match(failed.error, /cannot be stored in Postgres/);
      await waitUntil(async () => (await badRig.status()).failed === 1, 'the job to count as failed');
      const status = await badRig.status();
      assert.equal(status.delayed, 0, 'not delayed for another try');
    } finally {
      await Promise.all([rig.close(), badRig.close()]);
      await api.close();
      await bad.close();
    }
  });
});
