import { after, before } from 'node:test';
import type { DatasetRef, DatasetState, ReadCheckpoint } from '../../../src/store/dataset-store.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { createTestSchema, type TestSchema } from './services.js';

/** A dataset ref, a state and items for the Postgres store tests. */
export const ref = (userId: string, dataset = '/expenses'): DatasetRef => ({
  userId,
  dataset,
  path: dataset.split('?')[0]!,
  filter: {},
  baseUrl: 'http://api.test/rest/v5',
  tokenFingerprint: 'fp-a',
});
export const state = (lastUpdatedDate: string, mode: DatasetState['mode'] = 'full'): DatasetState => ({
  lastUpdatedDate,
  items: 0,
  syncedAt: '2026-11-22T00:00:00.000Z',
  mode,
  tokenFingerprint: 'fp-a',
});
export const items = (...ids: number[]) => ids.map((id) => ({ id, amount: id * 10 }));

/** Where a read of `user` stands after `pages` pages of `perPage` items: a checkpoint to keep. */
export const checkpointAt = (user: DatasetRef, pages: number, perPage = 2): ReadCheckpoint => ({
  baseUrl: user.baseUrl,
  userId: user.userId,
  dataset: user.dataset,
  filter: {},
  tokenFingerprint: user.tokenFingerprint,
  limit: perPage,
  location: 'test',
  basedOn: null,
  fullReason: 'first-sync',
  cursor: `c${pages}`,
  pages,
  items: pages * perPage,
  lastUpdatedDate: '2026-01-01T00:00:00.000Z',
  quirks: [],
  savedAt: '2026-01-01T00:00:00.000Z',
});

/** A PostgresStore on a schema of its own for the enclosing describe: made before, dropped after. */
export function useTestStore(opened: (handle: { schema: TestSchema; store: PostgresStore }) => void): void {
  let handle: { schema: TestSchema; store: PostgresStore } | undefined;
  before(async () => {
    const schema = await createTestSchema();
    handle = { schema, store: new PostgresStore({ url: schema.url }) };
    opened(handle);
  });
  after(async () => {
    await handle?.store.close();
    await handle?.schema.drop();
  });
}
