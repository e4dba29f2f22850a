/**
 * The file store's checkpoints, in-process: what is kept beside the data, when it is
 * continued, and when it is dropped. The end-to-end kill tests are in test/e2e/sync-resume.test.ts.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  cpSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { takeFileCheckpoint } from '../../src/store/file/full-read-checkpoint.js';
import type { TakenCheckpoint } from '../../src/store/read-checkpoint.js';
import { datasetRef, type SyncDatasetOptions, syncDataset } from '../../src/sync/sync-dataset.js';
import { tempDir } from '../helpers/cli.js';
import { startResumableListServer } from '../helpers/resumable-list-server.js';

type Api = Awaited<ReturnType<typeof startResumableListServer>>;

const staging = (out: string) => readdirSync(out).find((name) => name.endsWith('.staging')) ?? '';

function harness(api: Api, out = tempDir(), stateFile = join(tempDir(), 'state.json')) {
  const store = new FileStore({ outDir: out, stateFile });
  const options = (more: Partial<SyncDatasetOptions> = {}): SyncDatasetOptions => ({
    baseUrl: api.baseUrl,
    token: 'token-a',
    path: '/things',
    store,
    read: { limit: 10 },
    ...more,
  });
  /** A full read stopped (as by Ctrl-C) once page `page` is kept. */
  const stopAt = async (page: number, more: Partial<SyncDatasetOptions> = {}) => {
    const stop = new AbortController();
    await assert.rejects(
      syncDataset(
        options({
          signal: stop.signal,
          onProgress: (event) => {
            if (event.type === 'page' && event.page === page) stop.abort();
          },
          ...more,
        }),
      ),
      { code: 'ERR_ABORTED' },
    );
  };
  const data = () => JSON.parse(readFileSync(join(out, 'things.json'), 'utf8'));
  return { out, stateFile, store, options, stopAt, data };
}

describe('file store checkpoints', () => {
  it('a read stopped in this process is continued by the next run of the same process', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
    const h = harness(api);
    try {
      await h.stopAt(3);
      const before = api.requests();
      const summary = await syncDataset(h.options());
      assert.deepEqual(summary.resumed, { fromPage: 4, itemsKept: 30 });
      // Pages 4 to 10, then one incremental page since the read's first lastUpdatedDate (the catch-up).
      assert.equal(api.requests() - before, 8);
      assert.equal(summary.catchUp?.pages, 1);
      assert.deepEqual(h.data(), api.truth('token-a'));
      assert.deepEqual(
        readdirSync(h.out).filter((name) => !name.endsWith('.changes.jsonl')),
        ['things.json'],
      );
    } finally {
      await api.close();
    }
  });

  for (const [damage, expected] of [
    ['cut short', 'damaged'],
    ['a byte changed', 'damaged'],
    // The lines still read the same (a line reader drops "\r" and the digest drops the ","): only the
    // raw bytes show it, and the continued file's CRC-32 is taken over them (found in review).
    ['a separator changed', 'damaged'],
    ['record unreadable', 'damaged'],
    ['bytes written after the checkpoint', undefined],
  ] as const) {
    it(`staging file ${damage}: ${expected ? 'dropped, read from page 1' : 'cut back and continued'}`, async () => {
      const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
      const h = harness(api);
      try {
        await h.stopAt(4);
        const file = join(h.out, staging(h.out));
        const record = join(h.out, readdirSync(h.out).find((name) => name.endsWith('.checkpoint')) ?? '');
        if (damage === 'cut short') truncateSync(file, 100);
        if (damage === 'a byte changed') {
          const text = readFileSync(file, 'utf8');
          writeFileSync(file, text.replace('"amount":7', '"amount":8'));
        }
        if (damage === 'a separator changed') {
          const text = readFileSync(file, 'utf8');
          writeFileSync(file, text.replace('},\n{', '}\r\n{'));
        }
        if (damage === 'record unreadable') writeFileSync(record, '{"version":1,');
        if (damage === 'bytes written after the checkpoint') appendFileSync(file, ',\n{"id":41,"half');
        const events: string[] = [];
        const summary = await syncDataset(h.options({ onProgress: (event) => events.push(event.type) }));
        assert.equal(summary.resumeDiscarded, expected);
        assert.equal(summary.resumed?.fromPage, expected ? undefined : 5);
        assert.equal(events.includes('resume-discarded'), expected !== undefined);
        assert.deepEqual(h.data(), api.truth('token-a'));
        assert.deepEqual(
          readdirSync(h.out).filter((name) => !name.endsWith('.changes.jsonl')),
          ['things.json'],
        );
      } finally {
        await api.close();
      }
    });
  }

  // A kept file is input like any other: a symlink planted under its name is never followed, so a
  // resumed read cannot truncate or append to what it points at.
  for (const planted of ['.staging', '.checkpoint'] as const)
    it(`a ${planted} file that is a symlink is refused (dropped, read from page 1), and nothing outside is written`, async () => {
      const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
      const h = harness(api);
      try {
        await h.stopAt(4);
        const name = readdirSync(h.out).find((entry) => entry.endsWith(planted)) ?? '';
        const outside = join(tempDir(), 'elsewhere');
        renameSync(join(h.out, name), outside);
        symlinkSync(outside, join(h.out, name));
        const before = readFileSync(outside);
        const summary = await syncDataset(h.options());
        assert.equal(summary.resumeDiscarded, 'damaged');
        assert.equal(summary.resumed, undefined);
        assert.deepEqual(readFileSync(outside), before, 'the file the link points at is untouched');
        assert.deepEqual(h.data(), api.truth('token-a'));
        assert.ok(lstatSync(join(h.out, 'things.json')).isFile(), 'the data file is a file of its own');
        assert.deepEqual(
          readdirSync(h.out).filter((entry) => !entry.endsWith('.changes.jsonl')),
          ['things.json'],
        );
      } finally {
        await api.close();
      }
    });

  it('a checkpoint moved to another directory, or for another server, or under a state committed since, is dropped', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
    const other = await startResumableListServer({ accounts: { 'token-a': 20 } });
    try {
      const h = harness(api);
      await h.stopAt(3);
      const moved = tempDir();
      cpSync(h.out, moved, { recursive: true });
      const elsewhere = harness(api, moved, h.stateFile);
      assert.equal((await syncDataset(elsewhere.options())).resumeDiscarded, 'other-location');

      await h.stopAt(3, { baseUrl: other.baseUrl, read: { limit: 5 } });
      const back = await syncDataset(h.options());
      assert.equal(back.resumeDiscarded, 'other-base-url');
      assert.deepEqual(h.data(), api.truth('token-a'));

      // Stopped over a stored state; a window run (which leaves checkpoints alone) commits meanwhile.
      await h.stopAt(3, { read: { limit: 10, full: true } });
      assert.equal(
        (await syncDataset(h.options({ read: { limit: 10, since: '2026-05-01' } }))).resumeDiscarded,
        undefined,
      );
      assert.equal((await syncDataset(h.options())).resumeDiscarded, 'state-changed');
      assert.deepEqual(
        readdirSync(h.out).filter((name) => !name.endsWith('.changes.jsonl')),
        ['things.json'],
      );
    } finally {
      await api.close();
      await other.close();
    }
  });

  it('two runs taking one checkpoint at once: exactly one gets it', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
    const h = harness(api);
    try {
      await h.stopAt(3);
      const ref = datasetRef(h.options());
      const second = new FileStore({ outDir: h.out, stateFile: h.stateFile });
      const taken = await Promise.all([h.store.takeCheckpoint(ref), second.takeCheckpoint(ref)]);
      assert.equal(taken.filter((entry) => entry !== undefined).length, 1);
      // Held by the live run that took it: not offered again, not swept.
      assert.equal(await h.store.takeCheckpoint(ref), undefined);
      assert.ok(staging(h.out));
      await taken.find((entry) => entry !== undefined)?.release();
      const again = await h.store.takeCheckpoint(ref);
      assert.equal(again?.checkpoint?.pages, 3);
      await again?.discard();
      assert.deepEqual(readdirSync(h.out), []);
    } finally {
      await api.close();
    }
  });

  // The interleaving a loaded machine made once in the test above, made every time: the second run
  // lists the directory while the first has renamed the record to its own name but not yet read it.
  it('a run listing the directory right after another took the record leaves it to that run', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
    const h = harness(api);
    try {
      await h.stopAt(3);
      const file = h.store.fileFor(datasetRef(h.options()));
      const second: Array<TakenCheckpoint | undefined> = [];
      const first = await takeFileCheckpoint(file, {
        afterRename: async () => {
          second.push(await takeFileCheckpoint(file));
        },
      });
      assert.deepEqual(second, [undefined]);
      assert.equal(first?.damaged, undefined);
      assert.equal(first?.checkpoint?.pages, 3);
      await first?.discard();
      assert.deepEqual(readdirSync(h.out), []);
    } finally {
      await api.close();
    }
  });

  it('a read that went wrong (not cut off) keeps nothing: its cursor would meet the same answer', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 95 } });
    const h = harness(api);
    try {
      // The token is revoked mid-read: a 401 on a later page, after pages were kept.
      const kept: boolean[] = [];
      const run = syncDataset(
        h.options({
          onProgress: (event) => {
            if (event.type !== 'page') return;
            kept.push(event.kept === true);
            if (event.page === 2) api.revoke('token-a');
          },
        }),
      );
      await assert.rejects(run, { code: 'ERR_AUTH', details: { reason: 'token_rejected' } });
      assert.ok(kept[1], 'page 2 had been kept');
      assert.deepEqual(readdirSync(h.out), []);
    } finally {
      await api.close();
    }
  });
});
