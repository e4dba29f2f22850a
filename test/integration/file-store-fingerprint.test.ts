/**
 * An incremental run with nothing to merge trusts the data file while its fingerprint
 * (device, inode, size, mtime, ctime: file-fingerprint.ts) is the one committed with the state, and
 * does not read it; any write moves the ctime, so damage is still found; `verify` reads it anyway.
 * Reads are counted by wrapping node:fs's open (both the callback and the promise API, synced into
 * the ES module exports): the tests run as root here, where a chmod 000 would not stop a read.
 */
import assert from 'node:assert/strict';
import fs, { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { datasetRef, FileStore, syncDataset } from '../../src/api/sync.js';
import { tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const opened: string[] = [];
const original = { open: fs.open, promisesOpen: fs.promises.open };

beforeEach(() => {
  opened.length = 0;
  fs.open = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (original.open as (...args: unknown[]) => void)(path, ...rest);
  }) as typeof fs.open;
  fs.promises.open = (path, ...rest) => {
    opened.push(String(path));
    return original.promisesOpen(path, ...rest);
  };
  syncBuiltinESMExports();
});

afterEach(() => {
  fs.open = original.open;
  fs.promises.open = original.promisesOpen;
  syncBuiltinESMExports();
});

const damaged = (error: Error & { code?: string; details?: { reason?: string } }) =>
  error.code === 'ERR_IO' && error.details?.reason === 'data_file_damaged';

describe('FileStore fingerprint (no-change incremental runs are one stat)', () => {
  async function synced() {
    const server = await startClockedListServer({ accounts: { t: 6 } });
    const stateFile = join(tempDir(), 'state.json');
    const store = new FileStore({ outDir: tempDir(), stateFile });
    const options = { baseUrl: server.baseUrl, token: 't', path: '/things', store };
    await syncDataset(options);
    return { server, stateFile, options, file: store.fileFor(datasetRef(options)) };
  }

  it('does not open the data file when nothing changed; opens it when something did, or with verify', async () => {
    const { server, options, file } = await synced();
    try {
      opened.length = 0;
      const quiet = await syncDataset(options);
      assert.equal(quiet.mode, 'incremental');
      assert.equal(quiet.total, 6);
      assert.deepEqual(
        opened.filter((path) => path === file),
        [],
      );
      await syncDataset({ ...options, output: { verify: true } });
      assert.ok(opened.includes(file), 'verify reads the file (and the counting sees reads)');
      opened.length = 0;
      server.edit('t', 2, { amount: 20 });
      await syncDataset(options);
      assert.ok(opened.includes(file), 'a run with changes merges, reading the file');
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), server.truth('t'));
    } finally {
      await server.close();
    }
  });

  it('finds same-size damage with the mtime set back (the ctime moved), with nothing to merge', async () => {
    const { server, options, file } = await synced();
    try {
      const before = statSync(file);
      const text = readFileSync(file, 'utf8');
      const spoiled = text.replace('"amount":3', '"amount":4');
      assert.equal(spoiled.length, text.length);
      writeFileSync(file, spoiled);
      utimesSync(file, before.atime, before.mtime); // to the millisecond (file-fingerprint.test.ts: to the second)
      assert.ok(Math.abs(statSync(file).mtimeMs - before.mtimeMs) < 1);
      await assert.rejects(syncDataset(options), damaged);
      assert.equal(readFileSync(file, 'utf8'), spoiled, 'the damaged file is left for inspection');
    } finally {
      await server.close();
    }
  });

  it('trusts the fingerprint over the checksum when nothing is merged; a merge, or verify, checks in full', async () => {
    const { server, stateFile, options } = await synced();
    try {
      // A state whose checksum no longer matches a file nobody wrote to: only a full read can tell.
      const state = JSON.parse(readFileSync(stateFile, 'utf8'));
      const [key] = Object.keys(state.datasets);
      assert.ok(key && typeof state.datasets[key].fingerprint === 'string');
      state.datasets[key].checksum = 'crc32:0badc0de:1';
      writeFileSync(stateFile, JSON.stringify(state));
      assert.equal((await syncDataset(options)).mode, 'incremental');
      await assert.rejects(syncDataset({ ...options, output: { verify: true } }), damaged);
      // A merge reads the file anyway and checks it: damage the fingerprint cannot see is never given
      // a fresh checksum (laundered) by a merge.
      server.edit('t', 2, { amount: 20 });
      await assert.rejects(syncDataset(options), damaged);
    } finally {
      await server.close();
    }
  });

  it('sync --verify (CLI) reads the file and refuses a state that no longer matches it: exit 2, the --full advice', async () => {
    const server = await startClockedListServer({ accounts: { t: 4 } });
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const args = ['sync', '/things', '--base-url', server.baseUrl, '--token', 't', '--out', tempDir(), '--json'];
    try {
      assert.equal((await runInProcess(args, { env })).code, 0);
      const stateFile = join(env.LEDGERHOOK_CONFIG_DIR, 'state.json');
      const state = JSON.parse(readFileSync(stateFile, 'utf8'));
      for (const record of Object.values(state.datasets) as Array<{ checksum: string }>)
        record.checksum = 'crc32:0badc0de:1';
      writeFileSync(stateFile, JSON.stringify(state));
      assert.equal((await runInProcess(args, { env })).code, 0, 'nothing changed, the fingerprint vouches');
      const verified = await runInProcess([...args, '--verify'], { env });
      assert.equal(verified.code, 2, verified.stdout);
      assert.match(JSON.parse(verified.stdout).error.message, /damaged/);
    } finally {
      await server.close();
    }
  });
});
