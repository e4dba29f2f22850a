import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { CopyStream } from '../../src/store/postgres/postgres-copy.js';
import { pageRows } from '../../src/store/postgres/postgres-page-text.js';
import { beginMerge, finishMerge, STAGE_COPY } from '../../src/store/postgres/postgres-merge.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { servicesSkip, type TestSchema } from './helpers/services.js';
import { items, ref, state, useTestStore } from './helpers/store-fixtures.js';
import { waitUntil } from './helpers/wait.js';

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

  it('a full read whose pages repeat an id spelt otherwise (7, then "7") is refused naming both; spelt alike, the later page wins', async () => {
    for (const existing of [false, true]) {
      const user = ref(`user-spelt-${existing}`);
      if (existing) {
        const first = await store.beginFull(user);
        await first.add([{ id: 7 }, { id: 'z' }]);
        await first.commit(state('2026-01-01T00:00:00.000Z'));
      }
      const same = await store.beginFull(user);
      await same.add([{ id: 2 }, { id: 7 }]);
      await same.add([{ id: 7, second: true }]); // out of order: upserted from here on
      await same.add([{ id: 'a' }, { id: 'a', third: true }]);
      assert.equal((await same.commit(state('2026-01-02T00:00:00.000Z'))).total, 3, `existing rows: ${existing}`);
      assert.deepEqual(await store.items(user), [{ id: 2 }, { id: 7, second: true }, { id: 'a', third: true }]);

      const spelt = await store.beginFull(user);
      const refused = (async () => {
        await spelt.add([{ id: 1 }, { id: 7 }]);
        await spelt.add([{ id: '7', other: true }]);
        await spelt.add([{ id: 8 }]);
        await spelt.commit(state('2026-01-03T00:00:00.000Z'));
      })();
      await assert.rejects(refused, (error: any) => {
        assert.equal(error.details.reason, 'id_collision');
        assert.deepEqual(error.details.ids, ['7', '"7"']);
        return true;
      });
      assert.deepEqual(await store.items(user), [{ id: 2 }, { id: 7, second: true }, { id: 'a', third: true }]);
      assert.equal((await store.getState(user))?.lastUpdatedDate, '2026-01-02T00:00:00.000Z');
    }
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
        for (const rows of pageRows([{ id: 1, amount: 10 }, { id: 3, amount: 333 }, { id: 4 }], ''))
          await copy.write(rows);
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
    // A rule of this database that one item breaks: Postgres refuses the row in the open COPY (or,
    // staged for a merge, when the merge writes it).
    await schema.query(
      `ALTER TABLE ${schema.name}.ledgerhook_items ADD CONSTRAINT no_refused CHECK (item::text NOT LIKE '%refuse me%')`,
    );
    try {
      for (const existing of [true, false]) {
        const target = existing ? user : ref('user-copy-fails-new');
        const load = await store.beginFull(target);
        await load.add(items(3, 4));
        const failed = (async () => {
          await load.add([{ id: 5, note: 'refuse me' }]);
          await load.add(items(6));
          await load.commit(state('2026-01-02T00:00:00.000Z'));
        })();
        await assert.rejects(failed);
      }
    } finally {
      await schema.query(`ALTER TABLE ${schema.name}.ledgerhook_items DROP CONSTRAINT no_refused`);
    }
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      [1, 2],
    );
    assert.equal((await store.getState(user))?.lastUpdatedDate, '2026-01-01T00:00:00.000Z');
    assert.equal(await store.getState(ref('user-copy-fails-new')), undefined);
  });
});

describe('PostgresStore full loads: the connection under a timeout or lost', { skip }, () => {
  let schema: TestSchema;
  useTestStore((opened) => {
    ({ schema } = opened);
  });

  /** A store whose connections carry their own application_name (other test files use Postgres at the same time). */
  const storeWith = (name: string, options = '') => {
    const url = new URL(schema.url);
    url.searchParams.set('application_name', `${name}-${schema.name}`);
    if (options) url.searchParams.set('options', `${url.searchParams.get('options')} ${options}`);
    return { store: new PostgresStore({ url: url.href }), app: `${name}-${schema.name}` };
  };
  const copyBackend = async (app: string, table: string) => {
    let found: { pid: number; ms: number } | undefined;
    await waitUntil(async () => {
      const rows = await schema.query<{ pid: number; ms: number }>(
        `SELECT pid, extract(epoch FROM clock_timestamp() - query_start) * 1000 AS ms FROM pg_stat_activity
         WHERE application_name = $1 AND query LIKE $2 AND state = 'active'`,
        [app, `COPY ${table}%`],
      );
      found = rows.rows[0];
      return found !== undefined && (table !== 'ledgerhook_items' || found.ms > 400);
    }, `the COPY into ${table} to be open`);
    if (!found) throw new Error('unreachable');
    return found;
  };

  it("a server statement_timeout does not cut a load whose COPY outlives it (the read's pauses are not a query's)", async () => {
    const { store, app } = storeWith('lh-timeout', '-c statement_timeout=200');
    try {
      const user = ref('user-statement-timeout');
      const load = await store.beginFull(user);
      await load.add(items(1, 2));
      // Like a slow page: the COPY stays open past the timeout before the next page comes.
      await copyBackend(app, 'ledgerhook_items');
      await load.add(items(3));
      assert.equal((await load.commit(state('2026-01-01T00:00:00.000Z'))).total, 3);
    } finally {
      await store.close();
    }
  });

  it('a connection killed mid-COPY rejects the load, keeps the old rows and never crashes the process', async () => {
    const { store, app } = storeWith('lh-killed');
    try {
      const user = ref('user-killed');
      const first = await store.beginFull(user);
      await first.add(items(1, 2));
      await first.commit(state('2026-01-01T00:00:00.000Z'));
      const load = await store.beginFull(user);
      await load.add(items(10, 11)); // over rows: staged through COPY ledgerhook_stage
      const { pid } = await copyBackend(app, 'ledgerhook_stage');
      await schema.query('SELECT pg_terminate_backend($1)', [pid]);
      // An 'error' event nobody listens to would end this test process as an uncaught exception.
      await assert.rejects(async () => {
        await load.add(items(13));
        await load.commit(state('2026-01-02T00:00:00.000Z'));
      });
      assert.deepEqual(
        (await store.items(user)).map((item: any) => item.id),
        [1, 2],
      );
    } finally {
      await store.close();
    }
  });
});
