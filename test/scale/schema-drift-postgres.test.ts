/**
 * Schema drift with the Postgres store: the schema lives in ledgerhook_state.schema and
 * moves with the state in the commit's transaction; a frozen contract leaves rows and state row as
 * they were, on an incremental run and on a full one (whose staged rows are dropped).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { type PagedItem, startPagedListServer } from '../helpers/paged-list-server.js';
import { createTestSchema, servicesSkip } from './helpers/services.js';

const skip = await servicesSkip();

describe('schema drift with the Postgres store', { skip }, () => {
  it('records the schema with the state, reports drift once, and a frozen contract commits nothing', async () => {
    const schema = await createTestSchema();
    const server = await startPagedListServer(2500);
    const store = new PostgresStore({ url: schema.url });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { limit: 1000 } };
    const snapshot = async () => ({
      state: (await schema.query('SELECT last_updated_date, items, synced_at, schema FROM ledgerhook_state')).rows,
      rows: (await schema.query('SELECT item_id, item FROM ledgerhook_items ORDER BY item_id')).rows,
    });
    try {
      assert.equal((await syncDataset(options)).drift, undefined);
      const stored = await schema.query('SELECT schema FROM ledgerhook_state');
      assert.deepEqual(stored.rows[0]?.schema, { amount: ['number'], id: ['number'], type: ['string'] });

      server.put({ id: 7, amount: 7, type: 'BUSINESS', approvedBy: 'ann' });
      const added = await syncDataset(options);
      assert.deepEqual(added.drift?.added, ['approvedBy']);
      assert.equal((await syncDataset(options)).drift, undefined, 'reported once');

      server.put({ id: 8, amount: '8.00' as unknown as number, type: 'BUSINESS' } satisfies PagedItem);
      const before = await snapshot();
      for (const full of [false, true])
        await assert.rejects(
          syncDataset({ ...options, read: { limit: 1000, full }, output: { contract: 'freeze' } }),
          (error: any) => {
            assert.equal(error.code, 'ERR_CHECK_FAILED');
            assert.equal(error.details.reason, 'schema_drift');
            assert.match(error.message, /"amount" was number, now number\|string/);
            return true;
          },
        );
      assert.deepEqual(await snapshot(), before, 'rows and state row as they were');

      const accepted = await syncDataset(options);
      assert.deepEqual(accepted.drift?.changed, [{ field: 'amount', was: ['number'], now: ['number', 'string'] }]);
      const state = await store.getState({
        userId: '',
        dataset: '/invoices',
        path: '/invoices',
        filter: {},
        baseUrl: server.baseUrl,
        tokenFingerprint: (await store.list())[0]?.state.tokenFingerprint ?? '',
      });
      assert.deepEqual(state?.schema?.amount, ['number', 'string']);

      // A malformed column is read as no schema: the next run records afresh, reporting nothing.
      await schema.query(`UPDATE ledgerhook_state SET schema = '{"amount": "number"}'::jsonb`);
      server.put({ id: 9, amount: 9, type: null as unknown as string, extra: [] });
      assert.equal((await syncDataset(options)).drift, undefined);
      const rewritten = await schema.query('SELECT schema FROM ledgerhook_state');
      assert.deepEqual(rewritten.rows[0]?.schema, {
        amount: ['number'],
        extra: ['array'],
        id: ['number'],
        type: ['null'],
      });
    } finally {
      await store.close();
      await server.close();
      await schema.drop();
    }
  });
});
