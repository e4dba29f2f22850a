import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { datasetRef, FileStore } from '../../src/api/sync.js';
import { datasetLockPath } from '../../src/store/file/dataset-lock.js';
import { LockLease } from '../../src/store/file/lock-lease.js';
import type { DatasetState } from '../../src/store/dataset-store.js';
import { tempDir } from '../helpers/cli.js';

const reasonOf = (error: unknown) => (error as { details?: { reason?: string } }).details?.reason;

/** A lock directory as a holder killed with SIGKILL a minute ago leaves it. */
function ageLock(lockPath: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath, old, old);
}

const fullState = (): DatasetState => ({
  lastUpdatedDate: '2026-01-01T00:00:00Z',
  items: 0,
  syncedAt: new Date().toISOString(),
  mode: 'full',
  tokenFingerprint: datasetRef({ baseUrl: 'http://127.0.0.1:1', token: 't', path: '/things' }).tokenFingerprint,
});

async function seeded(lockWaitMs?: number) {
  const outDir = tempDir();
  const stateFile = join(tempDir(), 'state.json');
  const store = new FileStore({ outDir, stateFile, lockWaitMs });
  const ref = datasetRef({ baseUrl: 'http://127.0.0.1:1', token: 't', path: '/things' });
  const load = await store.beginFull(ref);
  await load.add([{ id: 1 }, { id: 2 }, { id: 3 }]);
  await load.commit(fullState());
  return { outDir, stateFile, store, ref, file: store.fileFor(ref) };
}

/** The state file a store was made with (the store keeps it as a StateFile). */
const stateFileOf = (store: FileStore) => store.stateFile.path;

const ids = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: number }>).map((item) => item.id);

describe('the dataset lock of the file store', () => {
  it('two stores merging into one dataset at once: every change of both is in the file, and its state describes it', async () => {
    const { outDir, stateFile, store, ref, file } = await seeded();
    const other = new FileStore({ outDir, stateFile });
    const state = { ...fullState(), mode: 'incremental' as const };
    const expected = [1, 2, 3];
    for (let round = 0; round < 4; round += 1) {
      await Promise.all([
        store.applyChanges(ref, { upserts: [{ id: 100 + round }], deletedIds: [] }, state),
        other.applyChanges(ref, { upserts: [{ id: 200 + round }], deletedIds: [] }, state),
      ]);
      expected.push(100 + round, 200 + round);
    }
    assert.deepEqual(
      ids(file),
      expected.sort((a, b) => a - b),
    );
    // The state matches the file exactly: a merge that checks every byte against it succeeds.
    await store.applyChanges(ref, { upserts: [], deletedIds: [], verify: true }, state);
    assert.equal((await store.getState(ref))?.items, expected.length);
  });

  it("a live holder's lock is waited for up to the bound, then a clear error; a crashed holder's is taken over", async () => {
    const { store, ref, file } = await seeded(50);
    const state = { ...fullState(), mode: 'incremental' as const };
    const holder = await LockLease.acquire(file, datasetLockPath(file), 'the other run');
    try {
      await assert.rejects(
        store.applyChanges(ref, { upserts: [{ id: 9 }], deletedIds: [] }, state),
        (error) => reasonOf(error) === 'dataset_busy' && (error as Error).message.includes('another ledgerhook run'),
      );
      // A bound too short for one round of retries ends in `retry`'s own timeout: still the holder's.
      const hasty = new FileStore({ outDir: dirname(file), stateFile: stateFileOf(store), lockWaitMs: 1 });
      await assert.rejects(
        hasty.applyChanges(ref, { upserts: [{ id: 9 }], deletedIds: [] }, state),
        (error) => reasonOf(error) === 'dataset_busy',
      );
    } finally {
      await holder.release();
    }
    // A holder killed with SIGKILL leaves its lock; once stale it is no one's.
    mkdirSync(datasetLockPath(file));
    ageLock(datasetLockPath(file));
    await store.applyChanges(ref, { upserts: [{ id: 9 }], deletedIds: [] }, state);
    assert.deepEqual(ids(file), [1, 2, 3, 9]);
    assert.equal(existsSync(datasetLockPath(file)), false);
  });

  it('a run that stood still past half the stale time commits nothing, even with nothing to merge', async () => {
    const { outDir, stateFile, ref, store } = await seeded();
    const before = await store.getState(ref);
    // Each reading of the holder's clock is 6 s after the one before: by the commit, its last
    // confirmed refresh looks older than half the lock's 10 s stale time, as for a stalled process.
    let at = Date.now();
    const stalled = new FileStore({ outDir, stateFile, lockClock: () => (at += 6_000) });
    const state = { ...fullState(), mode: 'incremental' as const, lastUpdatedDate: '2026-02-01T00:00:00Z' };
    await assert.rejects(
      stalled.applyChanges(ref, { upserts: [], deletedIds: [] }, state),
      (error) => reasonOf(error) === 'lock_lost',
    );
    assert.deepEqual(await store.getState(ref), before, 'the state is as the other run left it');
  });
});
