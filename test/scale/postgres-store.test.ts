import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { servicesSkip, type TestSchema } from './helpers/services.js';
import { items, ref, state, useTestStore } from './helpers/store-fixtures.js';

const skip = await servicesSkip();

describe('PostgresStore', { skip }, () => {
  let schema: TestSchema;
  let store: PostgresStore;
  useTestStore((opened) => {
    ({ schema, store } = opened);
  });

  it('creates its tables on first use, and migrating again applies nothing', async () => {
    const first = await store.migrate();
    assert.deepEqual(first.applied, [1]);
    const again = new PostgresStore({ url: schema.url });
    assert.deepEqual((await again.migrate()).applied, []);
    await again.close();
    const tables = await schema.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema.name],
    );
    assert.deepEqual(
      tables.rows.map((row) => row.table_name),
      [
        'ledgerhook_checkpoint',
        'ledgerhook_history',
        'ledgerhook_items',
        'ledgerhook_migrations',
        'ledgerhook_staged_pages',
        'ledgerhook_state',
        'ledgerhook_tombstones',
      ],
    );
  });

  it('replaces a dataset atomically on a full load: readers see the old rows until commit', async () => {
    const user = ref('user-full');
    const first = await store.beginFull(user);
    await first.add(items(1, 2, 3));
    assert.deepEqual((await first.commit(state('2026-01-01T00:00:00.000Z'))).total, 3);
    const second = await store.beginFull(user);
    await second.add(items(10, 11));
    await second.add(items(11, 12)); // an item seen on two pages is stored once
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      [1, 2, 3],
      'mid-load, readers still see the previous rows',
    );
    const result = await second.commit(state('2026-01-02T00:00:00.000Z'));
    assert.deepEqual(result, { total: 3, upserted: 3, removed: 0 });
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      [10, 11, 12],
    );
    const saved = await store.getState(user);
    assert.equal(saved?.lastUpdatedDate, '2026-01-02T00:00:00.000Z');
    assert.equal(saved?.items, 3);
  });

  it('stores any text byte-exact, whether a page is copied (ids ascending) or upserted (any order)', async () => {
    const user = ref('user-text');
    const odd = { note: 'tab\there\nnew line\r\\ back\\slash "quoted" ünïcødé 😀 \\N' };
    const load = await store.beginFull(user);
    await load.add([{ id: 1, ...odd }, { id: 2 }]);
    await load.add([{ id: 3, ...odd }]);
    await load.add([{ id: 2, replaced: true, ...odd }, { id: 4 }]); // out of order: upserted from here on
    await load.add([{ id: 5 }]);
    assert.equal((await load.commit(state('2026-01-01T00:00:00.000Z'))).total, 5);
    assert.deepEqual(await store.items(user), [
      { id: 1, ...odd },
      { id: 2, replaced: true, ...odd },
      { id: 3, ...odd },
      { id: 4 },
      { id: 5 },
    ]);
  });

  it('an aborted full load leaves the previous data and state', async () => {
    const user = ref('user-abort');
    const first = await store.beginFull(user);
    await first.add(items(1, 2));
    await first.commit(state('2026-01-01T00:00:00.000Z'));
    const second = await store.beginFull(user);
    await second.add(items(5));
    await second.abort();
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      [1, 2],
    );
    assert.equal((await store.getState(user))?.lastUpdatedDate, '2026-01-01T00:00:00.000Z');
  });

  const incremental: Array<{
    name: string;
    upserts: Array<{ id: number | string; amount: number }>;
    deletedIds: Array<number | string>;
    expected: { ids: number[]; total: number; upserted: number; removed: number };
  }> = [
    {
      name: 'upserts and deletes',
      upserts: [
        { id: 2, amount: 99 },
        { id: 9, amount: 1 },
      ],
      deletedIds: [3],
      expected: { ids: [1, 2, 4, 9], total: 4, upserted: 2, removed: 1 },
    },
    {
      name: 'an id in data and deletedIds stays (data is its current state)',
      upserts: [{ id: 3, amount: 5 }],
      deletedIds: [3],
      expected: { ids: [1, 2, 3, 4], total: 4, upserted: 1, removed: 0 },
    },
    {
      name: 'number and string ids name the same item',
      upserts: [{ id: '2', amount: 7 }],
      deletedIds: ['4', 1],
      expected: { ids: [2, 3], total: 2, upserted: 1, removed: 2 },
    },
    {
      name: 'deleting an unknown id changes nothing',
      upserts: [],
      deletedIds: [77],
      expected: { ids: [1, 2, 3, 4], total: 4, upserted: 0, removed: 0 },
    },
  ];
  for (const [index, row] of incremental.entries()) {
    it(`applies an incremental change set in one transaction: ${row.name}`, async () => {
      const user = ref(`user-inc-${index}`);
      const load = await store.beginFull(user);
      await load.add(items(1, 2, 3, 4));
      await load.commit(state('2026-01-01T00:00:00.000Z'));
      const result = await store.applyChanges(
        user,
        { upserts: row.upserts as any, deletedIds: row.deletedIds },
        state('2026-01-03T00:00:00.000Z', 'incremental'),
      );
      assert.deepEqual(result, {
        total: row.expected.total,
        upserted: row.expected.upserted,
        removed: row.expected.removed,
      });
      assert.deepEqual(
        (await store.items(user)).map((item: any) => Number(item.id)),
        row.expected.ids,
      );
      const saved = await store.getState(user);
      assert.equal(saved?.items, row.expected.total);
      assert.equal(saved?.mode, 'incremental');
    });
  }

  it('a failing change set commits nothing: data and state stay together', async () => {
    const user = ref('user-fail');
    const load = await store.beginFull(user);
    await load.add(items(1, 2));
    await load.commit(state('2026-01-01T00:00:00.000Z'));
    // An id no index entry can hold: refused by name, after the transaction has begun.
    const long = 'k'.repeat(2000);
    await assert.rejects(
      store.applyChanges(
        user,
        { upserts: [{ id: 1, amount: 0 }, { id: long }], deletedIds: [2] },
        state('2026-01-05T00:00:00.000Z', 'incremental'),
      ),
      (error: any) => {
        assert.equal(error.code, 'ERR_BAD_RESPONSE');
        assert.equal(error.details.reason, 'item_not_storable');
        assert.match(error.message, /the item with the id "k+… cannot be stored in Postgres: its id takes 2000 bytes/);
        return true;
      },
    );
    assert.deepEqual(await store.items(user), items(1, 2));
    assert.equal((await store.getState(user))?.lastUpdatedDate, '2026-01-01T00:00:00.000Z');
  });

  it('refuses to merge changes fetched with another token', async () => {
    const user = ref('user-token');
    const load = await store.beginFull(user);
    await load.add(items(1));
    await load.commit(state('2026-01-01T00:00:00.000Z'));
    await assert.rejects(
      store.applyChanges({ ...user, tokenFingerprint: 'fp-b' }, { upserts: items(2), deletedIds: [] }, state('x')),
      (error: any) => error.details.reason === 'store_token_changed',
    );
    // A sync starts from getState: another token or another server is refused before anything is read.
    for (const other of [{ tokenFingerprint: 'fp-b' }, { baseUrl: 'http://other.test/rest/v5' }]) {
      await assert.rejects(store.getState({ ...user, ...other }), (error: any) => {
        assert.equal(error.details.reason, 'store_owner_mismatch');
        return true;
      });
    }
    assert.equal((await store.getState({ ...user, baseUrl: `${user.baseUrl}/` }))?.items, 1);
  });

  it('keeps users apart, saves documents, lists and resets', async () => {
    const a = ref('a/b', '/userTaxSetup');
    const b = ref('a', '/userTaxSetup');
    await store.saveDocument(a, { rate: 1 }, state('2026-01-01T00:00:00.000Z', 'document'));
    await store.saveDocument(b, { rate: 2 }, state('2026-01-01T00:00:00.000Z', 'document'));
    assert.deepEqual(await store.items(a), [{ rate: 1 }]);
    assert.deepEqual(await store.items(b), [{ rate: 2 }]);
    const listed = await store.list();
    assert.ok(listed.some((entry) => entry.ref.userId === 'a/b' && entry.state.mode === 'document'));
    assert.equal(await store.reset(a), true);
    assert.equal(await store.reset(a), false);
    assert.deepEqual(await store.items(a), []);
    assert.deepEqual(await store.items(b), [{ rate: 2 }]);
    for (const userId of ['nul\u0000', 'lone \ud800', 'x'.repeat(1100)])
      await assert.rejects(store.getState(ref(userId)), (error: any) => error.details.reason === 'store_value_invalid');
  });
});
