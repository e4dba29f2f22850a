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
import { checkpointAt, items, ref, state, useTestStore } from './helpers/store-fixtures.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';

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
