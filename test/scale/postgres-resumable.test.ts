/**
 * A resumable full read into Postgres, at the store: the load's rows go into the dataset in its own
 * transaction while a checkpoint and the pages since the last one are written beside it, behind the
 * read. What a checkpoint row says it kept is what is kept, however the writes fall behind; a stop
 * writes what it owes first; the commit leaves nothing kept; kept pages that do not read back are
 * dropped so that the next run starts afresh.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servicesSkip, type TestSchema } from './helpers/services.js';
import { waitUntil } from './helpers/wait.js';
import { checkpointAt, items, ref, state, useTestStore } from './helpers/store-fixtures.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';

const skip = await servicesSkip();

describe('PostgresStore resumable loads', { skip }, () => {
  let schema: TestSchema;
  let store: PostgresStore;
  useTestStore((opened) => {
    ({ schema, store } = opened);
  });
  const count = async (table: string) =>
    Number((await schema.query(`SELECT count(*) AS n FROM ${schema.name}.${table}`)).rows[0]?.n);

  it('checkpoints asked for without waiting keep exactly their pages; a stop writes what it owes', async () => {
    const user = ref('user-behind');
    const load = await store.beginFull(user, { resumable: true });
    const asked: Array<Promise<void> | undefined> = [];
    for (let page = 1; page <= 6; page += 1) {
      await load.add(items(page * 2 - 1, page * 2));
      asked.push(load.checkpoint?.(checkpointAt(user, page)));
    }
    await load.add(items(13, 14)); // a page after the last checkpoint: not kept
    await load.abort({ keepCheckpoint: true });
    await Promise.all(asked);
    const kept = (
      await schema.query(`SELECT checkpoint, staged_pages, staged_items FROM ${schema.name}.ledgerhook_checkpoint`)
    ).rows[0];
    assert.deepEqual([kept?.checkpoint.pages, kept?.staged_pages, Number(kept?.staged_items)], [6, 6, 12]);
    assert.equal(await count('ledgerhook_items'), 0, 'nothing of the read is in the dataset');

    const taken = await store.takeCheckpoint(user);
    assert.equal(taken?.damaged, undefined);
    const resumed = await store.beginFull(user, { resume: taken });
    await resumed.add(items(13, 14));
    assert.equal((await resumed.commit(state('2026-01-01T00:00:00.000Z'))).total, 14);
    assert.deepEqual(
      (await store.items(user)).map((item: any) => item.id),
      Array.from({ length: 14 }, (_, index) => index + 1),
    );
    assert.deepEqual([await count('ledgerhook_staged_pages'), await count('ledgerhook_checkpoint')], [0, 0]);
  });

  it('checkpoints are written at the cadence: the first at once, then every few pages, and one owed is written when its time is up', async () => {
    const cadenced = new PostgresStore({
      url: schema.url,
      checkpointCadence: { pages: 3, bytes: 1 << 30, ms: 60_000 },
    });
    const timed = new PostgresStore({ url: schema.url, checkpointCadence: { pages: 100, bytes: 1 << 30, ms: 50 } });
    const unbounded = new PostgresStore({
      url: schema.url,
      checkpointCadence: { pages: 100, bytes: 1 << 30, ms: 60_000 },
    });
    const keptPages = async (user: string) =>
      (
        await schema.query(
          `SELECT c.staged_pages AS pages, (SELECT count(*) FROM ${schema.name}.ledgerhook_staged_pages s
             WHERE s.user_id = c.user_id) AS writes
           FROM ${schema.name}.ledgerhook_checkpoint c WHERE c.user_id = $1`,
          [user],
        )
      ).rows.map((row) => [row.pages, Number(row.writes)])[0];
    try {
      const user = ref('user-cadence');
      const load = await cadenced.beginFull(user, { resumable: true });
      for (let page = 1; page <= 7; page += 1) {
        await load.add(items(page * 2 - 1, page * 2));
        await load.checkpoint?.(checkpointAt(user, page));
        // Page 1 is written at once; pages 2-4 and 5-7 each wait for the third of them.
        if (page === 1 || page === 4 || page === 7)
          await waitUntil(async () => (await keptPages(user.userId))?.[0] === page, `page ${page} kept`);
      }
      assert.deepEqual(await keptPages(user.userId), [7, 3], 'three writes for seven pages');
      await load.add(items(15, 16));
      await load.checkpoint?.(checkpointAt(user, 8)); // owed: not due for two more pages or a minute
      await load.abort({ keepCheckpoint: true });
      assert.deepEqual(await keptPages(user.userId), [8, 4], 'a stop writes what it owes');
      await (await cadenced.takeCheckpoint(user))?.discard();

      const slow = ref('user-timed');
      const read = await timed.beginFull(slow, { resumable: true });
      await read.add(items(1, 2));
      await read.checkpoint?.(checkpointAt(slow, 1));
      await read.add(items(3, 4));
      await read.checkpoint?.(checkpointAt(slow, 2));
      // No third page comes (a slow server): the owed checkpoint is written by its timer.
      await waitUntil(async () => (await keptPages(slow.userId))?.[0] === 2, 'page 2 kept by the timer');
      await read.abort();
      assert.equal(await keptPages(slow.userId), undefined, 'an abort without keepCheckpoint drops it');

      // A cadence of more pages than the keeper holds still writes every 8: the read stays kept.
      const long = ref('user-long');
      const wide = await unbounded.beginFull(long, { resumable: true });
      for (let page = 1; page <= 20; page += 1) {
        await wide.add(items(page * 2 - 1, page * 2));
        await wide.checkpoint?.(checkpointAt(long, page));
      }
      await wide.abort({ keepCheckpoint: true });
      assert.deepEqual(await keptPages(long.userId), [20, 4], 'pages 1, 2-9, 10-17, 18-20');
      await (await unbounded.takeCheckpoint(long))?.discard();

      // A commit that fails writes what was owed: the next run goes on from the last page asked for.
      const failing = ref('user-failing-commit');
      const doomed = await unbounded.beginFull(failing, { resumable: true });
      for (let page = 1; page <= 3; page += 1) {
        await doomed.add(items(page * 2 - 1, page * 2));
        await doomed.checkpoint?.(checkpointAt(failing, page));
      }
      const broken = { ...state('2026-01-01T00:00:00.000Z'), lastUpdatedDate: null as unknown as string };
      await assert.rejects(doomed.commit(broken));
      assert.deepEqual(await keptPages(failing.userId), [3, 2], 'page 1, then pages 2-3 after the failed commit');
      assert.deepEqual(await unbounded.items(failing), [], 'nothing of the read is in the dataset');
      await (await unbounded.takeCheckpoint(failing))?.discard();
    } finally {
      await cadenced.close();
      await timed.close();
      await unbounded.close();
    }
  });

  it('pages added without checkpoints are not held in memory: past a bound the read is no longer kept', async () => {
    const user = ref('user-unkept');
    for (const end of ['stop', 'commit'] as const) {
      const load = await store.beginFull(user, { resumable: true });
      await load.add(items(1, 2));
      await load.checkpoint?.(checkpointAt(user, 1));
      for (let page = 2; page <= 20; page += 1) await load.add(items(page * 2 - 1, page * 2));
      await load.checkpoint?.(checkpointAt(user, 20));
      if (end === 'stop') {
        // A stop keeps what it can: nothing, the first checkpoint having been dropped with the rest.
        await load.abort({ keepCheckpoint: true });
        assert.deepEqual([await count('ledgerhook_staged_pages'), await count('ledgerhook_checkpoint')], [0, 0]);
      } else assert.equal((await load.commit(state('2026-01-01T00:00:00.000Z'))).total, 40, 'the read is whole');
    }
  });

  it('kept pages that do not read back are dropped: the next run reads from page 1', async () => {
    const user = ref('user-damaged');
    const load = await store.beginFull(user, { resumable: true });
    await load.add(items(1, 2));
    await load.checkpoint?.(checkpointAt(user, 1));
    await load.abort({ keepCheckpoint: true });
    await schema.query(`UPDATE ${schema.name}.ledgerhook_staged_pages SET body = 'not rows'`);
    const taken = await store.takeCheckpoint(user);
    await assert.rejects(store.beginFull(user, { resume: taken }), (error: any) => {
      assert.equal(error.details.reason, 'store_failed');
      assert.match(error.message, /kept pages of an interrupted read of \/expenses were damaged/);
      return true;
    });
    assert.equal(await store.takeCheckpoint(user), undefined);
    assert.deepEqual([await count('ledgerhook_staged_pages'), await count('ledgerhook_checkpoint')], [0, 0]);
  });

  it('kept pages that no longer add up to their checkpoint are offered as damaged', async () => {
    const user = ref('user-short');
    const load = await store.beginFull(user, { resumable: true });
    await load.add(items(1, 2));
    await load.checkpoint?.(checkpointAt(user, 1));
    await load.add(items(3, 4));
    await load.checkpoint?.(checkpointAt(user, 2));
    await load.abort({ keepCheckpoint: true });
    // What a server crash does to an unlogged table, in part.
    await schema.query(`DELETE FROM ${schema.name}.ledgerhook_staged_pages WHERE first_page = 2`);
    const taken = await store.takeCheckpoint(user);
    assert.match(taken?.damaged ?? '', /1 of 2 pages, 2 of 4 items/);
    await taken?.discard();
  });
});
