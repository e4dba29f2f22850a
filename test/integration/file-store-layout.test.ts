/**
 * Where the file store keeps a dataset, and how an earlier layout is moved there: a user's
 * directory and a dataset's file are named by identity.ts so that names differing only in case are
 * apart on every file system; datasets an earlier build named otherwise (`Alice/`,
 * `expenses%3Ftype=PENDING.json`) are renamed on first use, under the state's lock, from what the
 * state says, and nothing is guessed when both names exist or two users' places are one.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { datasetRef, FileStore, syncDataset } from '../../src/api/sync.js';
import { tempDir } from '../helpers/cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** A state file whose records say the files are at `places` (record key → path), as an earlier build wrote it. */
function recordPlaces(stateFile: string, place: (file: string) => string): void {
  const state = readJson(stateFile);
  for (const record of Object.values(state.datasets) as Array<{ file: string }>) record.file = place(record.file);
  writeFileSync(stateFile, JSON.stringify(state));
}

async function harness(accounts: Record<string, number> = { t: 6, u: 4 }) {
  const server = await startClockedListServer({ accounts });
  const out = tempDir();
  const stateFile = join(tempDir(), 'state.json');
  const store = () => new FileStore({ outDir: out, stateFile });
  const options = (userId: string, token = 't', filter: Record<string, string> = { type: 'PENDING' }) => ({
    baseUrl: server.baseUrl,
    token,
    path: '/things',
    filter,
    userId,
  });
  return { server, out, stateFile, store, options };
}

describe('file store layout', () => {
  it('keeps users and datasets differing only in case apart', async () => {
    const h = await harness();
    try {
      const store = h.store();
      await syncDataset({ ...h.options('Alice'), store });
      await syncDataset({ ...h.options('alice', 'u'), store });
      await syncDataset({ ...h.options('alice', 'u', { type: 'pending' }), store });
      assert.deepEqual(readdirSync(h.out).sort(), ['Alice@0', 'alice']);
      assert.deepEqual(
        readdirSync(join(h.out, 'alice'))
          .filter((name) => name.endsWith('.json'))
          .sort(),
        ['things.type=PENDING@12-18.json', 'things.type=pending.json'],
      );
      // Folded as macOS and Windows fold names, still one name each in every directory.
      for (const dir of [h.out, join(h.out, 'alice'), join(h.out, 'Alice@0')]) {
        const names = readdirSync(dir);
        assert.equal(new Set(names.map((name) => name.toLowerCase())).size, names.length, names.join());
      }
    } finally {
      await h.server.close();
    }
  });

  it('moves an earlier layout to these names on first use: user directory, data file, change log; the next run stays incremental', async () => {
    const h = await harness();
    try {
      const first = h.store();
      await syncDataset({ ...h.options('Alice'), store: first });
      h.server.edit('t', 1, { amount: 10 });
      await syncDataset({ ...h.options('Alice'), store: first });
      await syncDataset({ ...h.options(''), store: first });
      const alice = first.fileFor(datasetRef(h.options('Alice')));
      const top = first.fileFor(datasetRef(h.options('')));
      // As an earlier build laid them out: the userId and the dataset key percent-encoded.
      const oldAlice = join(h.out, 'Alice', 'things%3Ftype=PENDING.json');
      const oldTop = join(h.out, 'things%3Ftype=PENDING.json');
      renameSync(dirname(alice), join(h.out, 'Alice'));
      renameSync(join(h.out, 'Alice', 'things.type=PENDING@12-18.json'), oldAlice);
      renameSync(
        join(h.out, 'Alice', 'things.type=PENDING@12-18.changes.jsonl'),
        oldAlice.replace(/json$/, 'changes.jsonl'),
      );
      renameSync(top, oldTop);
      // A kept read of the old name, its process long gone: litter once the name moves.
      writeFileSync(join(h.out, 'Alice', '.things%3Ftype=PENDING.json.99999999.0123abcd.staging'), '[\n');
      recordPlaces(h.stateFile, (file) => (file === alice ? oldAlice : oldTop));

      h.server.edit('t', 3, { amount: 30 });
      const later = h.store();
      const run = await syncDataset({ ...h.options('Alice'), store: later });
      assert.equal(run.mode, 'incremental');
      assert.deepEqual(readJson(alice), h.server.truth('t', 'PENDING'));
      assert.deepEqual(readdirSync(h.out).sort(), ['Alice@0', 'things.type=PENDING@12-18.json']);
      assert.deepEqual(readdirSync(dirname(alice)).sort(), [
        'things.type=PENDING@12-18.changes.jsonl',
        'things.type=PENDING@12-18.json',
      ]);
      const places = (Object.values(readJson(h.stateFile).datasets) as Array<{ file: string }>).map((r) => r.file);
      assert.deepEqual(places.sort(), [alice, top].sort());
      // The history moved with its file.
      assert.deepEqual(
        (await later.history(datasetRef(h.options('Alice')), 1)).map((entry) => entry.item?.amount),
        [10],
      );
    } finally {
      await h.server.close();
    }
  });

  it('goes on after a crash between its renames (the directory moved, the state not yet)', async () => {
    const h = await harness();
    try {
      await syncDataset({ ...h.options('Alice'), store: h.store() });
      const file = h.store().fileFor(datasetRef(h.options('Alice')));
      renameSync(file, join(dirname(file), 'things%3Ftype=PENDING.json'));
      // Recorded at the old place in the old directory, but the directory already has its new name.
      recordPlaces(h.stateFile, () => join(h.out, 'Alice', 'things%3Ftype=PENDING.json'));
      const run = await syncDataset({ ...h.options('Alice'), store: h.store() });
      assert.equal(run.mode, 'incremental');
      assert.ok(existsSync(file));
      assert.deepEqual(readJson(file), h.server.truth('t', 'PENDING'));
    } finally {
      await h.server.close();
    }
  });

  it('refuses in one line, moving nothing, when both an old and a new name exist', async () => {
    const h = await harness();
    try {
      await syncDataset({ ...h.options('Alice'), store: h.store() });
      const file = h.store().fileFor(datasetRef(h.options('Alice')));
      const old = join(h.out, 'Alice');
      mkdirSync(old);
      writeFileSync(join(old, 'things%3Ftype=PENDING.json'), '[\n]\n');
      recordPlaces(h.stateFile, () => join(old, 'things%3Ftype=PENDING.json'));
      const before = readFileSync(file, 'utf8');
      await assert.rejects(syncDataset({ ...h.options('Alice'), store: h.store() }), (error: Error) => {
        assert.equal((error as { details?: { reason?: string } }).details?.reason, 'layout_conflict');
        assert.match(error.message, /^cannot move \S+\/Alice to \S+\/Alice@0, .*both exist/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      assert.equal(readFileSync(file, 'utf8'), before);
      assert.ok(existsSync(join(old, 'things%3Ftype=PENDING.json')));
    } finally {
      await h.server.close();
    }
  });

  it('refuses two users whose directories are one (as on a case-insensitive file system): nothing moves', async () => {
    const h = await harness();
    try {
      const store = h.store();
      await syncDataset({ ...h.options('Alice'), store });
      await syncDataset({ ...h.options('alice', 'u', {}), store });
      // What macOS made of an earlier layout: `Alice/` and `alice/` one directory, both users' files in it.
      const shared = join(h.out, 'Alice');
      renameSync(join(h.out, 'Alice@0'), shared);
      renameSync(join(h.out, 'alice', 'things.json'), join(shared, 'things.json'));
      renameSync(join(h.out, 'alice'), join(tempDir(), 'gone'));
      symlinkSync(shared, join(h.out, 'alice'));
      recordPlaces(h.stateFile, (file) =>
        file.includes('Alice@0') ? join(shared, 'things%3Ftype=PENDING.json') : join(h.out, 'alice', 'things.json'),
      );
      renameSync(join(shared, 'things.type=PENDING@12-18.json'), join(shared, 'things%3Ftype=PENDING.json'));
      const listing = readdirSync(shared).sort();
      await assert.rejects(syncDataset({ ...h.options('Alice'), store: h.store() }), (error: Error) => {
        assert.equal((error as { details?: { reason?: string } }).details?.reason, 'layout_conflict');
        assert.match(error.message, /are one on this file system .*"Alice"'s .*"alice"'s|"alice"'s .*"Alice"'s/);
        return true;
      });
      assert.deepEqual(readdirSync(shared).sort(), listing, 'nothing moved');
      assert.ok(existsSync(shared));
    } finally {
      await h.server.close();
    }
  });

  it('never moves from a place the state names outside the output directory (the state is input too)', async () => {
    const h = await harness();
    try {
      await syncDataset({ ...h.options('Alice'), store: h.store() });
      const outside = tempDir();
      mkdirSync(join(outside, 'secret'));
      writeFileSync(join(outside, 'secret', 'things.json'), '[\n]\n');
      for (const place of [
        join(outside, 'secret', 'things.json'),
        `${h.out}/../${outside.split('/').pop()}/secret/things.json`,
      ]) {
        recordPlaces(h.stateFile, () => place);
        await syncDataset({ ...h.options('Alice'), store: h.store() });
        assert.deepEqual(readdirSync(join(outside, 'secret')), ['things.json'], place);
        assert.deepEqual(readdirSync(h.out), ['Alice@0']);
      }
    } finally {
      await h.server.close();
    }
  });

  it("finds a file's owner by userId and dataset, not by the spelling of its path", async () => {
    const h = await harness();
    try {
      await syncDataset({ ...h.options(''), store: h.store() });
      const file = h.store().fileFor(datasetRef(h.options('')));
      // The same file, spelt another way in the state (as `Alice/` and `alice/` are one on macOS).
      recordPlaces(h.stateFile, () => `${h.out}/./${file.slice(h.out.length + 1)}`);
      const before = readFileSync(file, 'utf8');
      await assert.rejects(
        syncDataset({ ...h.options('', 'u'), store: h.store() }),
        (error: { details?: { reason?: string } }) => error.details?.reason === 'owner_mismatch',
      );
      assert.equal(readFileSync(file, 'utf8'), before, "the other account's data never went in");
    } finally {
      await h.server.close();
    }
  });
});
