import { after, before } from 'node:test';
import type { DatasetRef, DatasetState } from '../../../src/store/dataset-store.js';
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
