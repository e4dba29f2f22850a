/**
 * Sync never mixes, loses or damages data, asserted through the CLI (so each test holds however
 * the code under it is written). The commands run in-process (runInProcess: the same definitions,
 * command modules and exit-code mapping) except two spawned end-to-end runs: a damaged file (exit 2, one line, the --full advice) and a hanging server
 * (exit 3 on --timeout: a real process must not end early while undici lets go of its socket).
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore, syncDataset } from '../../src/api/sync.js';
import { datasetKey } from '../../src/store/identity.js';
import { startMockServer } from '../../src/index.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

function syncer(baseUrl: string, out = tempDir(), env = { LEDGERHOOK_CONFIG_DIR: tempDir() }) {
  const args = (token: string, extra: string[]) => [
    'sync',
    '/things',
    '--base-url',
    baseUrl,
    '--token',
    token,
    '--out',
    out,
    '--json',
    ...extra,
  ];
  return {
    out,
    env,
    /** In-process. */
    run: (token: string, ...extra: string[]) => runInProcess(args(token, extra), { env }),
    /** A real process, as a user runs it. */
    spawn: (token: string, ...extra: string[]) => runCli(args(token, extra), { env }),
    stateList: async () => JSON.parse((await runInProcess(['state', 'list', '--json'], { env })).stdout),
  };
}

describe('sync keeps data apart, whole and current', () => {
  it('gives --type PENDING --filter x=1 and --filter type=PENDING.x=1 different files and states', async () => {
    const server = await startClockedListServer({ accounts: { a: 10 } });
    const s = syncer(server.baseUrl);
    try {
      const first = await s.run('a', '--type', 'PENDING', '--filter', 'x=1');
      const second = await s.run('a', '--filter', 'type=PENDING.x=1');
      assert.equal(first.code, 0, first.stderr);
      assert.equal(second.code, 0, second.stderr);
      const [one, two] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
      assert.notEqual(one.file, two.file);
      assert.deepEqual(readJson(one.file), server.truth('a', 'PENDING'));
      assert.deepEqual(readJson(two.file), []);
      const state = await s.stateList();
      assert.equal(Object.keys(state.datasets).length, 2);
    } finally {
      await server.close();
    }
  });

  it("refuses (exit 2, owner mismatch) to merge one token's data into another's file", async () => {
    const server = await startClockedListServer({ accounts: { alice: 6, bob: 4 } });
    const s = syncer(server.baseUrl);
    try {
      const alice = await s.run('alice');
      assert.equal(alice.code, 0, alice.stderr);
      const file = JSON.parse(alice.stdout).file;
      const before = readFileSync(file, 'utf8');
      for (const extra of [[], ['--full']]) {
        const bob = await s.run('bob', ...extra);
        assert.equal(bob.code, 2, bob.stdout);
        assert.match(bob.stderr, /another access token.*never merged.*own --out/);
        assertOneLineError(bob);
        assert.equal(readFileSync(file, 'utf8'), before);
      }
      assert.ok(readJson(file).every((item: { owner: string }) => item.owner === 'alice'));
      const state = JSON.stringify(await s.stateList());
      assert.doesNotMatch(state, /alice|bob/, 'the state holds fingerprints, never tokens');
    } finally {
      await server.close();
    }
  });

  it('stores the FIRST page lastUpdatedDate: an item edited mid-read is fetched by the next run', async () => {
    const server = await startClockedListServer({ accounts: { a: 20 } });
    const s = syncer(server.baseUrl);
    try {
      // While page 3 of the full read is requested, items on page 1 (already served) change.
      server.onRequest((n) => {
        if (n === 3) {
          server.edit('a', 2, { amount: 999 });
          server.edit('a', 3, { type: 'BUSINESS' });
        }
      });
      assert.equal((await s.run('a', '--limit', '5')).code, 0);
      server.onRequest(undefined);
      const next = await s.run('a', '--limit', '5');
      assert.equal(next.code, 0, next.stderr);
      assert.equal(JSON.parse(next.stdout).mode, 'incremental');
      assert.deepEqual(readJson(JSON.parse(next.stdout).file), server.truth('a'));
    } finally {
      await server.close();
    }
  });

  it('treats 7 and "7" as one id in data and deletedIds', async () => {
    const server = await startClockedListServer({
      accounts: { a: 8 },
      deletedIdsAsStrings: true,
      idsAsStringsWhenIncremental: true,
    });
    const s = syncer(server.baseUrl);
    try {
      assert.equal((await s.run('a', '--type', 'PENDING')).code, 0);
      server.edit('a', 3, { type: 'BUSINESS' }); // leaves the PENDING dataset: deletedIds ["3"]
      server.edit('a', 5, { amount: 50 }); // comes back as id "5"
      const next = await s.run('a', '--type', 'PENDING');
      assert.equal(next.code, 0, next.stderr);
      const items = readJson(JSON.parse(next.stdout).file) as Array<{ id: number | string; amount: number }>;
      assert.deepEqual(
        items.map((item) => Number(item.id)),
        server.truth('a', 'PENDING').map((item) => Number(item.id)),
      );
      assert.equal(items.filter((item) => Number(item.id) === 5).length, 1);
      assert.equal(items.find((item) => Number(item.id) === 5)?.amount, 50);
    } finally {
      await server.close();
    }
  });

  const damages: Array<[string, (text: string) => string]> = [
    ['a 0-byte file', () => ''],
    ['an array cut at a line boundary', (text) => text.split('\n').slice(0, 4).join('\n')],
    ['a deleted line', (text) => text.split('\n').toSpliced(2, 1).join('\n')],
    ['a line that is {}', (text) => text.split('\n').toSpliced(2, 1, '{},').join('\n')],
    ['a line that is null', (text) => text.split('\n').toSpliced(2, 1, 'null,').join('\n')],
    ['an item edited by hand', (text) => text.replace('"amount":3', '"amount":4')],
  ];
  // The first damage goes through the CLI (the refused run spawned: exit 2, one line, the --full
  // advice); the others are the same store check, driven in-process through syncDataset + FileStore.
  for (const [damage, spoil] of damages.slice(0, 1)) {
    it(`detects ${damage} before merging: exit 2, "run ... with --full", nothing changed`, async () => {
      const server = await startClockedListServer({ accounts: { a: 9 } });
      const s = syncer(server.baseUrl);
      try {
        const first = await s.run('a');
        const file = JSON.parse(first.stdout).file;
        writeFileSync(file, spoil(readFileSync(file, 'utf8')));
        const spoiled = readFileSync(file, 'utf8');
        server.edit('a', 1, { amount: 11 });
        const next = await s.spawn('a');
        assert.equal(next.code, 2, `${damage}: ${next.stdout}`);
        assert.match(next.stderr, /damaged.*--full/);
        assertOneLineError(next);
        assert.equal(readFileSync(file, 'utf8'), spoiled, 'the damaged file is left for inspection');
        const full = await s.run('a', '--full');
        assert.equal(full.code, 0, full.stderr);
        assert.deepEqual(readJson(file), server.truth('a'));
      } finally {
        await server.close();
      }
    });
  }

  for (const [damage, spoil] of damages.slice(1)) {
    it(`detects ${damage} before merging (in-process): data_file_damaged, nothing changed, --full rebuilds`, async () => {
      const server = await startClockedListServer({ accounts: { a: 9 } });
      const store = new FileStore({ outDir: tempDir(), stateFile: join(tempDir(), 'state.json') });
      const sync = (full = false) =>
        syncDataset({ baseUrl: server.baseUrl, token: 'a', path: '/things', store, read: { full } });
      try {
        await sync();
        const file = store.fileFor({ userId: '', dataset: datasetKey('/things', {}) });
        writeFileSync(file, spoil(readFileSync(file, 'utf8')));
        const spoiled = readFileSync(file, 'utf8');
        server.edit('a', 1, { amount: 11 });
        await assert.rejects(
          sync(),
          (error: Error & { code: string; details?: { reason?: string } }) =>
            error.code === 'ERR_IO' && error.details?.reason === 'data_file_damaged' && /damaged/.test(error.message),
          damage,
        );
        assert.equal(readFileSync(file, 'utf8'), spoiled, 'the damaged file is left for inspection');
        const full = await sync(true);
        assert.equal(full.mode, 'full');
        assert.deepEqual(readJson(file), server.truth('a'));
      } finally {
        await server.close();
      }
    });
  }

  it('fails a 200 that is not an envelope on a list endpoint without touching file or state; /userTaxSetup stays a document', async () => {
    const server = await startClockedListServer({ hostile: 'not-envelope' });
    const s = syncer(server.baseUrl);
    try {
      const result = await s.run('token-a');
      assert.equal(result.code, 3, result.stdout);
      assert.match(result.stderr, /not a list envelope/);
      assert.deepEqual(readdirSync(s.out), []);
      assert.equal(Object.keys((await s.stateList()).datasets).length, 0);
    } finally {
      await server.close();
    }
    const mock = await startMockServer({ port: 0, items: 3 });
    try {
      const out = tempDir();
      const tax = await runInProcess([
        'sync',
        'userTaxSetup',
        '--base-url',
        mock.url,
        '--token',
        mock.token,
        '--out',
        out,
        '--json',
      ]);
      assert.equal(tax.code, 0, tax.stderr);
      assert.equal(JSON.parse(tax.stdout).mode, 'document');
    } finally {
      await mock.close();
    }
  });

  for (const [hostile, args, pattern] of [
    ['endless-empty', [], /10 pages in a row that brought nothing new/],
    ['endless-repeat', [], /10 pages in a row that brought nothing new/],
    ['endless-empty', ['--max-pages', '5'], /more pages after 5.*--max-pages/],
    ['huge', ['--max-response-bytes', '100000'], /more than 100000 bytes.*--max-response-bytes/],
    ['hang', ['--timeout', '0.3', '--max-wait', '100ms'], /did not answer within 300 ms/],
    ['bad-cursor', [], /cursor that cannot be sent back as a header.*report it to the API team/],
  ] as const) {
    // hang runs as a real process: main.ts holds the event loop while a request times out.
    it(`ends ${hostile} ${args.join(' ')} with a clear error, writing nothing`, async () => {
      const server = await startClockedListServer({ hostile });
      const s = syncer(server.baseUrl);
      try {
        const result = await (hostile === 'hang' ? s.spawn : s.run)('token-a', ...args);
        assert.equal(result.code, 3, result.stdout);
        assert.match(result.stderr, pattern);
        assertOneLineError(result);
        assert.deepEqual(readdirSync(s.out), []);
      } finally {
        await server.close();
      }
    });
  }

  it('answers a state file of the wrong shape and a read-only --out with exit 2 and the path; files are 0600', async () => {
    const server = await startClockedListServer({ accounts: { a: 3 } });
    try {
      const s = syncer(server.baseUrl);
      const ok = await s.run('a');
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(statSync(JSON.parse(ok.stdout).file).mode & 0o777, 0o600);
      const stateFile = join(s.env.LEDGERHOOK_CONFIG_DIR, 'state.json');
      assert.equal(statSync(stateFile).mode & 0o777, 0o600);
      // One wrong shape through the CLI (exit 2, one line, the path); all three against the store in-process.
      const wrongShapes = ['{"datasets": []}', '[]', '{"datasets": {"k": {"lastUpdatedDate": 5}}}'];
      writeFileSync(stateFile, wrongShapes[0]!);
      const result = await s.run('a');
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.includes(stateFile), result.stderr);
      assert.match(result.stderr, /move it away/);
      assertOneLineError(result);
      for (const wrong of wrongShapes) {
        writeFileSync(stateFile, wrong);
        await assert.rejects(
          syncDataset({
            baseUrl: server.baseUrl,
            token: 'a',
            path: '/things',
            store: new FileStore({ outDir: s.out, stateFile }),
          }),
          (error: Error & { details?: { reason?: string } }) =>
            error.details?.reason === 'state_file_invalid' &&
            error.message.includes(stateFile) &&
            /move it away/.test(error.message),
          wrong,
        );
      }
      // An --out that cannot be created (under a file), and one that is read-only (not for root).
      const aFile = join(tempDir(), 'a-file');
      writeFileSync(aFile, '');
      const unwritable = [join(aFile, 'out')];
      if (process.getuid?.() !== 0) {
        const readOnly = tempDir();
        chmodSync(readOnly, 0o500);
        unwritable.push(readOnly);
      }
      for (const out of unwritable) {
        const result = await syncer(server.baseUrl, out).run('a');
        assert.equal(result.code, 2, result.stderr);
        assert.ok(result.stderr.includes(out.replace(/\/out$/, '')), result.stderr);
        assert.match(result.stderr, /choose a writable directory with --out/);
        assertOneLineError(result);
      }
    } finally {
      await server.close();
    }
  });

  it('reads the token from --token-file', async () => {
    const server = await startClockedListServer({ accounts: { 'file-token': 4 } });
    try {
      const tokenFile = join(tempDir(), 'token');
      writeFileSync(tokenFile, 'file-token\n');
      const out = tempDir();
      const result = await runInProcess([
        'sync',
        '/things',
        '--base-url',
        server.baseUrl,
        '--token-file',
        tokenFile,
        '--out',
        out,
        '--json',
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(readJson(JSON.parse(result.stdout).file), server.truth('file-token'));
      const missing = await runInProcess([
        'sync',
        '/things',
        '--base-url',
        server.baseUrl,
        '--token-file',
        join(out, 'nope'),
      ]);
      assert.equal(missing.code, 2);
      assertOneLineError(missing);
    } finally {
      await server.close();
    }
  });
});
