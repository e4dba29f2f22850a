import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { CopyStream, copyRows } from '../../src/store/postgres-copy.js';
import { beginMerge, finishMerge, STAGE_COPY } from '../../src/store/postgres-merge.js';
import type { PostgresStore } from '../../src/store/postgres-store.js';
import { servicesSkip, type TestSchema } from './helpers/services.js';
import { items, ref, state, useTestStore } from './helpers/store-fixtures.js';

const skip = await servicesSkip();

/** A full load over a dataset that has rows (staged, then merged) and a COPY that Postgres refuses. */
describe('PostgresStore full loads: merge and COPY failures', { skip }, () => {
  let schema: TestSchema;
  let store: PostgresStore;
  useTestStore((opened) => {
    ({ schema, store } = opened);
  });

  it('merges a full load into existing rows: changed updated, new inserted, missing deleted, unchanged untouched', async () => {
    const user = ref('user-merge');
    const odd = { note: 'tab\there\nnew line\r\\ back\\slash "quoted" ünïcødé 😀 \\N' };
    const first = await store.beginFull(user);
    await first.add([...items(1, 2, 3, 4), { id: 5, ...odd }]);
    await first.commit(state('2026-01-01T00:00:00.000Z'));
    const before = await schema.query(
      `SELECT item_id, xmin::text AS version FROM ${schema.name}.ledgerhook_items WHERE user_id = $1`,
      [user.userId],
    );
    const versionOf = (rows: Array<{ item_id: string; version: string }>, id: string) =>
      rows.find((row) => row.item_id === id)?.version;

    const second = await store.beginFull(user);
    await second.add([
      { id: 1, amount: 10 },
      { id: 2, amount: 999 },
    ]); // 1 unchanged, 2 changed
    await second.add([
      { id: 5, ...odd },
      { id: 6, amount: 60 },
    ]); // 3 and 4 are gone, 6 is new
    await second.add([{ id: 2, amount: 222 }, { id: 7 }]); // out of order: a later page wins
    const result = await second.commit(state('2026-01-02T00:00:00.000Z'));
    assert.deepEqual(result, { total: 5, upserted: 5, removed: 0 });
    assert.deepEqual(await store.items(user), [
      { id: 1, amount: 10 },
      { id: 2, amount: 222 },
      { id: 5, ...odd },
      { id: 6, amount: 60 },
      { id: 7 },
    ]);
    const after = await schema.query(
      `SELECT item_id, xmin::text AS version FROM ${schema.name}.ledgerhook_items WHERE user_id = $1`,
      [user.userId],
    );
    assert.equal(versionOf(after.rows, '1'), versionOf(before.rows, '1'), 'an unchanged row is not rewritten');
    assert.equal(versionOf(after.rows, '5'), versionOf(before.rows, '5'), 'an unchanged row is not rewritten');
    assert.notEqual(versionOf(after.rows, '2'), versionOf(before.rows, '2'));
    assert.equal((await store.getState(user))?.items, 5);
  });

  for (const statement of ['merge', 'update-insert'] as const) {
    it(`finishes a merge with ${statement === 'merge' ? 'MERGE (Postgres 15+)' : 'UPDATE + INSERT (older servers)'}`, async () => {
      const user = ref(`user-${statement}`);
      const first = await store.beginFull(user);
      await first.add(items(1, 2, 3));
      await first.commit(state('2026-01-01T00:00:00.000Z'));
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        await client.query('BEGIN');
        await beginMerge(client);
        const copy = await CopyStream.open(client, STAGE_COPY);
        await copy.write(copyRows([{ id: 1, amount: 10 }, { id: 3, amount: 333 }, { id: 4 }]));
        await copy.end();
        assert.equal(await finishMerge(client, user, statement), 3);
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
      assert.deepEqual(await store.items(user), [{ id: 1, amount: 10 }, { id: 3, amount: 333 }, { id: 4 }]);
    });
  }

  it('a full load that Postgres refuses mid-COPY rolls back and frees its connection', async () => {
    const user = ref('user-copy-fails');
    const first = await store.beginFull(user);
    await first.add(items(1, 2));
    await first.commit(state('2026-01-01T00:00:00.000Z'));
    for (const existing of [true, false]) {
      const target = existing ? user : ref('user-copy-fails-new');
      const load = await store.beginFull(target);
      await load.add(items(3, 4));
      // jsonb refuses \u0000: the open COPY fails on this page, at the latest when the load commits.
      const failed = (async () => {
        await load.add([{ id: 5, note: 'bad\u0000' }]);
        await load.add(items(6));
        await load.commit(state('2026-01-02T00:00:00.000Z'));
      })();
      await assert.rejects(failed);
    }
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      [1, 2],
    );
    assert.equal((await store.getState(user))?.lastUpdatedDate, '2026-01-01T00:00:00.000Z');
    assert.equal(await store.getState(ref('user-copy-fails-new')), undefined);
  });
});
