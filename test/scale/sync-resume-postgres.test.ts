/**
 * Resumable full reads into Postgres: `sync --store postgres://` killed mid-read keeps its
 * pages in ledgerhook_staged_pages with a checkpoint row, and the rerun goes on from there; nothing of it
 * is in ledgerhook_items or ledgerhook_state before the commit. Each test has a schema of its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { killedAfter, startResumableListServer } from '../helpers/resumable-list-server.js';
import { createTestSchema, servicesSkip, type TestSchema } from './helpers/services.js';

const skip = await servicesSkip();

async function rows(schema: TestSchema, table: string): Promise<number> {
  const result = await schema.query(`SELECT count(*) AS n FROM ${table}`);
  return Number(result.rows[0]?.n);
}

describe('sync into Postgres resumes an interrupted full read', { skip }, () => {
  it('killed after 4 of 10 pages: staged, not visible; the rerun fetches the rest, equals the server, and cleans up', async () => {
    const schema = await createTestSchema();
    const api = await startResumableListServer({ accounts: { 'token-a': 95, 'token-b': 30 } });
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: schema.url };
    const args = (token: string, ...more: string[]) => [
      'sync',
      '/things',
      '--base-url',
      api.baseUrl,
      '--token',
      token,
      '--limit',
      '10',
      ...more,
    ];
    const items = async () =>
      (
        await schema.query("SELECT item FROM ledgerhook_items WHERE dataset = '/things' ORDER BY item_id::int")
      ).rows.map((row) => row.item);
    try {
      await killedAfter(api, args('token-a'), env, 4);
      const firstPage = api.log()[0]?.answered;
      assert.deepEqual(
        [await rows(schema, 'ledgerhook_items'), await rows(schema, 'ledgerhook_state')],
        [0, 0],
        'nothing half-read is visible as the dataset',
      );
      const kept = (await schema.query('SELECT checkpoint, staged_pages, staged_items FROM ledgerhook_checkpoint'))
        .rows[0];
      // Page 1's checkpoint is written at once, the later ones at the store's cadence (8 pages, a
      // megabyte or a second after the last write), behind the read: any of pages 1 to 4 may be kept.
      assert.ok([1, 2, 3, 4].includes(kept?.checkpoint.pages), JSON.stringify(kept));
      assert.equal(kept?.staged_pages, kept?.checkpoint.pages);
      assert.equal(Number(kept?.staged_items), kept?.checkpoint.pages * 10);
      const pages = await schema.query('SELECT sum(pages) AS pages, sum(items) AS items FROM ledgerhook_staged_pages');
      assert.deepEqual(
        [Number(pages.rows[0]?.pages), Number(pages.rows[0]?.items)],
        [kept?.staged_pages, Number(kept?.staged_items)],
        'the pages kept are those the checkpoint counts',
      );

      const before = api.requests();
      // The kills are real processes; the reruns are the sync command in process (the spawned resume,
      // as a user runs it, is e2e/sync-resume.test.ts's).
      const rerun = await runInProcess(args('token-a', '--json'), { env });
      assert.equal(rerun.code, 0, rerun.stderr);
      const summary = JSON.parse(rerun.stdout);
      assert.equal(summary.resumed?.fromPage, kept?.checkpoint.pages + 1);
      // The rest of the read, then one incremental page since the read's first page (the catch-up).
      assert.equal(api.requests() - before, 10 - kept?.checkpoint.pages + 1, 'fewer pages the second time');
      assert.equal(api.log().at(-1)?.lastUpdatedDate, firstPage);
      assert.deepEqual(await items(), api.truth('token-a'));
      const state = (await schema.query('SELECT last_updated_date, items FROM ledgerhook_state')).rows[0];
      assert.deepEqual([state?.last_updated_date, Number(state?.items)], [summary.lastUpdatedDate, 95]);
      assert.deepEqual(
        [await rows(schema, 'ledgerhook_staged_pages'), await rows(schema, 'ledgerhook_checkpoint')],
        [0, 0],
      );

      // Over data that is there, a --full read killed mid-way leaves the previous rows as they were;
      // the cursor then expires, and the rerun says so and reads from page 1.
      const previous = await items();
      await killedAfter(api, args('token-a', '--full'), env, 3);
      assert.deepEqual(await items(), previous);
      api.expireCursors();
      const restarted = await runInProcess(args('token-a', '--json'), { env });
      assert.equal(restarted.code, 0, restarted.stderr);
      assert.deepEqual(
        [JSON.parse(restarted.stdout).resumeDiscarded, JSON.parse(restarted.stdout).mode],
        ['invalid-cursor', 'incremental'],
        'without the checkpoint the run is what it would have been: incremental over the stored state',
      );
      assert.deepEqual(
        [await rows(schema, 'ledgerhook_staged_pages'), await rows(schema, 'ledgerhook_checkpoint')],
        [0, 0],
      );
    } finally {
      await api.close();
      await schema.drop();
    }
  });

  it('never continues a checkpoint read with another token', async () => {
    const schema = await createTestSchema();
    const api = await startResumableListServer({ accounts: { 'token-a': 95, 'token-b': 30 } });
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_STORE: schema.url };
    const args = (token: string) => ['sync', '/things', '--base-url', api.baseUrl, '--token', token, '--limit', '10'];
    try {
      await killedAfter(api, args('token-a'), env, 3);
      const before = api.requests();
      const other = await runInProcess([...args('token-b'), '--json'], { env });
      assert.equal(other.code, 0, other.stderr);
      assert.equal(JSON.parse(other.stdout).resumeDiscarded, 'other-token');
      assert.equal(api.log()[before]?.cursor, undefined, 'page 1 first');
      const stored = await schema.query(
        "SELECT item FROM ledgerhook_items WHERE dataset = '/things' ORDER BY item_id::int",
      );
      assert.deepEqual(
        stored.rows.map((row) => row.item),
        api.truth('token-b'),
      );
      assert.deepEqual(
        [await rows(schema, 'ledgerhook_staged_pages'), await rows(schema, 'ledgerhook_checkpoint')],
        [0, 0],
      );
    } finally {
      await api.close();
      await schema.drop();
    }
  });
});
