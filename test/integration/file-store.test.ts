import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { datasetRef, FileStore, syncDataset } from '../../src/api/sync.js';
import { userDirName } from '../../src/store/identity.js';
import { tempDir } from '../helpers/cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('FileStore', () => {
  it('one dataset synced into two output directories: each stays equal to the server (no state shared between them)', async () => {
    const server = await startClockedListServer({ accounts: { t: 5 } });
    const stateFile = join(tempDir(), 'state.json');
    const first = new FileStore({ outDir: tempDir(), stateFile });
    const second = new FileStore({ outDir: tempDir(), stateFile });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/things' };
    try {
      await syncDataset({ ...options, store: first });
      server.edit('t', 2, { amount: 21 });
      assert.equal((await syncDataset({ ...options, store: second })).mode, 'full');
      server.edit('t', 3, { amount: 31 });
      await syncDataset({ ...options, store: first });
      for (const store of [first, second]) await syncDataset({ ...options, store });
      for (const store of [first, second])
        assert.deepEqual(readJson(store.fileFor(datasetRef(options))), server.truth('t'));
    } finally {
      await server.close();
    }
  });

  it('refuses a user directory that is a symlink out of the output directory, and writes nothing there', async () => {
    const server = await startClockedListServer({ accounts: { t: 3 } });
    const outDir = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(outDir, userDirName('mallory')));
    const store = new FileStore({ outDir, stateFile: join(tempDir(), 'state.json') });
    try {
      await assert.rejects(
        syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/things', userId: 'mallory', store }),
        (error: Error & { details?: { reason?: string } }) => error.details?.reason === 'path_outside_out_dir',
      );
      assert.deepEqual(readdirSync(elsewhere), []);
      await syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/things', userId: 'alice', store });
      assert.ok(existsSync(join(outDir, 'alice', 'things.json')));
    } finally {
      await server.close();
    }
  });

  it('accepts a file that matches the pending state (killed between rename and state), refuses one that matches neither', async () => {
    const server = await startClockedListServer({ accounts: { t: 6 } });
    const stateFile = join(tempDir(), 'state.json');
    const store = new FileStore({ outDir: tempDir(), stateFile });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/things', store };
    const file = store.fileFor(datasetRef(options));
    try {
      await syncDataset(options);
      const state = readJson(stateFile);
      const [key] = Object.keys(state.datasets);
      assert.ok(key);
      // As if a newer file had been renamed into place but the state not yet moved on.
      state.datasets[key].pending = { ...state.datasets[key] };
      state.datasets[key].checksum = 'crc32:0badc0de:1';
      state.datasets[key].items = 99;
      writeFileSync(stateFile, JSON.stringify(state));
      server.edit('t', 2, { amount: 20 });
      const next = await syncDataset(options);
      assert.equal(next.mode, 'incremental');
      assert.deepEqual(readJson(file), server.truth('t'));
      assert.equal(readJson(stateFile).datasets[key].pending, undefined);
      // Neither committed nor pending: damage, found by a full check (a file whose fingerprint is
      // the one committed is trusted unless asked to verify: file-store-fingerprint.test.ts).
      const spoiled = readJson(stateFile);
      spoiled.datasets[key].checksum = 'crc32:0badc0de:2';
      writeFileSync(stateFile, JSON.stringify(spoiled));
      server.edit('t', 3, { amount: 30 });
      await assert.rejects(syncDataset({ ...options, output: { verify: true } }), {
        code: 'ERR_IO',
        details: { reason: 'data_file_damaged', path: file },
      } as never);
    } finally {
      await server.close();
    }
  });

  it('keeps state per user and dataset; list and reset work on that identity', async () => {
    const server = await startClockedListServer({ accounts: { t: 2, u: 3 } });
    const store = new FileStore({ outDir: tempDir(), stateFile: join(tempDir(), 'state.json') });
    try {
      for (const [userId, token] of [
        ['a/b', 't'],
        ['a_b', 'u'],
      ] as const)
        await syncDataset({ baseUrl: server.baseUrl, token, path: '/things', userId, store });
      const listed = await store.list();
      assert.deepEqual(listed.map((entry) => [entry.ref.userId, entry.state.items]).sort(), [
        ['a/b', 2],
        ['a_b', 3],
      ]);
      assert.equal(await store.reset({ userId: 'a/b', dataset: '/things', baseUrl: server.baseUrl }), true);
      assert.deepEqual(
        (await store.list()).map((entry) => entry.ref.userId),
        ['a_b'],
      );
      assert.equal(await store.reset({ userId: 'a/b', dataset: '/things', baseUrl: server.baseUrl }), false);
    } finally {
      await server.close();
    }
  });
});
