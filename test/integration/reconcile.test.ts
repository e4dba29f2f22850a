/**
 * Reconcile: a full read compared with the stored copy by id and content, without
 * touching it; `repair` applies the difference in one commit. The server is written in the test,
 * and the differences are planted the way they happen: changes no webhook announced.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { reconcileDataset } from '../../src/sync/reconcile.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { tempDir } from '../helpers/cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

function setup() {
  const dir = tempDir();
  return new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
}

const fileItems = (store: FileStore) =>
  JSON.parse(readFileSync(store.fileFor({ userId: '', dataset: '/invoices' }), 'utf8')) as Array<{ id: number }>;

describe('reconcileDataset', () => {
  it('finds three planted differences without touching the store, and repair fixes them in one commit', async () => {
    const server = await startPagedListServer(250);
    const store = setup();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { limit: 40 } };
    try {
      await syncDataset(options);
      const before = readFileSync(store.fileFor({ userId: '', dataset: '/invoices' }), 'utf8');
      // Three changes no webhook announced: one edited, one deleted, one created.
      server.put({ id: 7, amount: 700, type: 'BUSINESS' });
      server.remove(120);
      server.put({ id: 251, amount: 251, type: 'BUSINESS' });
      const found = await reconcileDataset(options);
      assert.equal(found.equal, false);
      assert.deepEqual(
        { missing: found.missing, extra: found.extra, different: found.different },
        { missing: [251], extra: [120], different: [7] },
      );
      assert.equal(found.serverItems, 250);
      assert.equal(found.storedItems, 250);
      assert.equal(found.repaired, undefined);
      assert.equal(readFileSync(store.fileFor({ userId: '', dataset: '/invoices' }), 'utf8'), before);

      const repaired = await reconcileDataset({ ...options, repair: true });
      assert.deepEqual(repaired.repaired, { total: 250, upserted: 2, removed: 1 });
      assert.deepEqual(
        fileItems(store),
        server.items().sort((a, b) => a.id - b.id),
      );
      const again = await reconcileDataset(options);
      assert.equal(again.equal, true);
      const [listed] = await store.list();
      assert.equal(listed?.activity?.lastReconcile?.missing, 0);
      // The first run's three changes are counted as changes no webhook announced.
      assert.equal(listed?.activity?.missedChanges, 3);
      // The next incremental sync goes on from the repair and finds nothing new.
      const next = await syncDataset(options);
      assert.equal(next.mode, 'incremental');
      assert.equal(next.upserted + next.deleted, 0);
    } finally {
      await server.close();
    }
  });

  it('compares content, not spelling: key order does not count as a difference', async () => {
    const server = await startPagedListServer(3);
    const store = setup();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store };
    try {
      await syncDataset(options);
      server.put({ type: 'BUSINESS', amount: 2, id: 2 }); // same content, keys reordered
      assert.equal((await reconcileDataset(options)).equal, true);
    } finally {
      await server.close();
    }
  });

  it('refuses a dataset never synced into the store, saying so', async () => {
    const server = await startPagedListServer(3);
    try {
      await assert.rejects(
        reconcileDataset({ baseUrl: server.baseUrl, token: 't', path: '/invoices', store: setup() }),
        (error: Error & { details?: { reason?: string } }) =>
          error.details?.reason === 'dataset_not_synced' && /nothing to reconcile/.test(error.message),
      );
      assert.equal(server.pages, 0);
    } finally {
      await server.close();
    }
  });
});
