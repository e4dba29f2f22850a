/**
 * The server's timestamps into the Postgres store: the same rule as the file store (server-stamp.ts,
 * test/integration/server-stamps.test.ts): a stamp from the future commits nothing, not even the
 * table; one that went back is stored, both named.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { datasetRef, syncDataset } from '../../src/sync/sync-dataset.js';
import { startStampedListServer } from '../helpers/stamped-list-server.js';
import { createTestSchema, servicesSkip } from './helpers/services.js';

const skip = await servicesSkip();

describe('server timestamps into Postgres', { skip }, () => {
  it('9999 is refused with no row or state written; a stamp that went back is stored with both named', async () => {
    const schema = await createTestSchema();
    const server = await startStampedListServer({ stamp: '9999-12-31T23:59:59.999Z' });
    const store = new PostgresStore({ url: schema.url });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store };
    try {
      await store.migrate();
      await assert.rejects(syncDataset(options), (error: Error & { details: { reason: string } }) => {
        assert.equal(error.details.reason, 'stamp_ahead');
        return true;
      });
      assert.equal(await store.getState(datasetRef(options)), undefined);
      assert.equal((await schema.query('SELECT count(*)::int AS n FROM ledgerhook_items')).rows[0]?.n, 0);

      server.setStamp('2026-11-24T10:00:00.000Z');
      await syncDataset(options);
      server.setStamp('2020-01-01T00:00:00.000Z');
      server.put(3, 3);
      const behind = await syncDataset(options);
      assert.deepEqual(behind.stampBehind, {
        received: '2020-01-01T00:00:00.000Z',
        stored: '2026-11-24T10:00:00.000Z',
      });
      assert.equal(behind.total, 3);
      assert.equal((await store.getState(datasetRef(options)))?.lastUpdatedDate, '2020-01-01T00:00:00.000Z');
    } finally {
      await store.close();
      await server.close();
      await schema.drop();
    }
  });
});
