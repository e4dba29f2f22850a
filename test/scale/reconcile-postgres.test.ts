/**
 * Reconcile against the Postgres store: rows changed behind the sync's back (a lost
 * webhook on the server, a hand edit in the table) are found by id and content, and repaired in
 * one transaction; the activity column keeps the last reconcile.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { reconcileDataset } from '../../src/sync/reconcile.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { createTestSchema, servicesSkip } from './helpers/services.js';

const skip = await servicesSkip();

describe('reconcile with the Postgres store', { skip }, () => {
  it('finds a server change, a hand-deleted row and a hand-edited row, and repair makes the table equal', async () => {
    const schema = await createTestSchema();
    const server = await startPagedListServer(12_000);
    const store = new PostgresStore({ url: schema.url });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { limit: 1000 } };
    try {
      await syncDataset(options);
      server.put({ id: 12_001, amount: 1, type: 'BUSINESS' });
      await schema.query("DELETE FROM ledgerhook_items WHERE item_id = '5'");
      await schema.query(
        `UPDATE ledgerhook_items SET item = jsonb_set(item::jsonb, '{amount}', '0')::json WHERE item_id = '11000'`,
      );
      const found = await reconcileDataset(options);
      assert.deepEqual(
        { missing: found.missing, extra: found.extra, different: found.different },
        { missing: [5, 12_001], extra: [], different: [11_000] },
      );
      assert.equal(found.storedItems, 11_999);
      const fixed = await reconcileDataset({ ...options, repair: true });
      assert.equal(fixed.repaired?.total, 12_001);
      assert.equal((await reconcileDataset(options)).equal, true);
      const [listed] = await store.list();
      assert.equal(listed?.activity?.lastReconcile?.repaired, false);
      assert.equal(listed?.activity?.missedChanges, 3);
    } finally {
      await store.close();
      await server.close();
      await schema.drop();
    }
  });
});
