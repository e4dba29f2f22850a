/**
 * Spec 4.3 and 5.1 seen from the wire: what `ledgerhook sync` sends on every request, read from the
 * request log of an independent list server (test/helpers/spec-list-server.ts, not the mock).
 * Spec 9: the stored production settings are used with --env production.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore, syncDataset } from '../../src/api/sync.js';
import { datasetKey } from '../../src/store/identity.js';
import { DEFAULT_PAGE_LIMIT } from '../../src/defaults.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecListServer } from '../helpers/spec-list-server.js';

/** The helper server's cursor for "continue at offset n" (its own encoding, opaque to sync). */
const cursorAt = (offset: number) => Buffer.from(String(offset)).toString('base64url');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** `ledgerhook sync /things`: a real process with `spawn`, otherwise in-process (runInProcess). */
async function sync(baseUrl: string, args: string[], env: Record<string, string>, spawn = false) {
  const result = await (spawn ? runCli : runInProcess)(['sync', '/things', '--base-url', baseUrl, '--json', ...args], {
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { mode: string; pages: number; lastUpdatedDate: string; file: string };
}

/**
 * The same read in-process (syncDataset + FileStore, what `sync` calls): the first test below goes
 * through the CLI end to end; the cursor, lastUpdatedDate and type rules are the library's.
 */
function librarySyncer(server: { baseUrl: string; token: string }, limit: number, filter: Record<string, string> = {}) {
  const store = new FileStore({ outDir: tempDir(), stateFile: join(tempDir(), 'state.json') });
  const file = store.fileFor({ userId: '', dataset: datasetKey('/things', filter) });
  return async () => {
    const summary = await syncDataset({
      baseUrl: server.baseUrl,
      token: server.token,
      path: '/things',
      filter,
      read: { limit },
      store,
    });
    return { ...summary, file };
  };
}

describe('spec 4.3: the headers sync sends', () => {
  it('limit 100 on every request by default (rule 3), whatever page size the server would pick itself', async () => {
    // Spec 8: the server's default page size is not shown; sync never relies on it.
    const server = await startSpecListServer({ items: 250, defaultLimit: 7 });
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    try {
      const out = tempDir();
      // The full read as a real process; the incremental one in-process (the same command module).
      const full = await sync(server.baseUrl, ['--token', server.token, '--out', out], env, true);
      assert.equal(full.pages, 3, '250 items at limit 100: pages of 100, 100, 50');
      assert.equal(readJson(full.file).length, 250);
      server.mutate({ create: 120, update: 5 });
      await sync(server.baseUrl, ['--token', server.token, '--out', out], env);
      const log = server.log();
      assert.ok(log.length >= 5, `${log.length} requests`);
      assert.equal(DEFAULT_PAGE_LIMIT, 100);
      for (const request of log) {
        assert.equal(request.limit, '100', `limit header of ${request.path}${request.query}`);
        assert.equal(request.method, 'GET');
        assert.equal(request.authorization, `Bearer ${server.token}`, 'spec 5.1: Authorization: Bearer <token>');
        assert.equal(request.contentType, 'application/json', 'sent in the samples');
      }
      assert.equal(readJson(full.file).length, 370, 'the incremental read added the 120 new items');
    } finally {
      await server.close();
    }
  });

  it('a full read: no cursor and no lastUpdatedDate on the first request; each later page sends the previous cursor', async () => {
    const server = await startSpecListServer({ items: 25 });
    try {
      await librarySyncer(server, 10)();
      const log = server.log();
      assert.deepEqual(
        log.map((request) => [request.limit, request.cursor, request.lastUpdatedDate]),
        [
          ['10', undefined, undefined],
          ['10', cursorAt(10), undefined],
          ['10', cursorAt(20), undefined],
        ],
        'rule 4: lastUpdatedDate omitted on the first read of a dataset; rule 2: the last page has no cursor, so no 4th request',
      );
    } finally {
      await server.close();
    }
  });

  it('an incremental read: the stored lastUpdatedDate goes on the first page and travels with the cursor on later pages', async () => {
    const server = await startSpecListServer({ items: 25 });
    const run = librarySyncer(server, 10);
    try {
      const full = await run();
      const before = server.log().length;
      server.mutate({ create: 15, update: 3 });
      const incremental = await run();
      assert.equal(incremental.mode, 'incremental');
      const log = server.log().slice(before);
      assert.ok(log.length >= 2, 'more changes than one page');
      assert.deepEqual(
        log.map((request) => [request.cursor, request.lastUpdatedDate]),
        log.map((_, index) => [index === 0 ? undefined : cursorAt(index * 10), full.lastUpdatedDate]),
        'rule 4: the stored value is sent; with a cursor it is sent again unchanged (the same read)',
      );
      assert.deepEqual(
        readJson(incremental.file),
        server.truth(),
        'items are stored verbatim, fields the spec does not show included',
      );
      const quiet = server.log().length;
      await run();
      assert.equal(server.log().length - quiet, 1, 'rule 5: nothing changed, one page without a cursor ends the read');
    } finally {
      await server.close();
    }
  });

  it('rule 6: the type filter goes on every page of the full and of the incremental read', async () => {
    const server = await startSpecListServer({ items: 60 });
    const run = librarySyncer(server, 5, { type: 'PENDING' });
    try {
      await run();
      server.mutate({ create: 30, retype: 2 });
      const incremental = await run();
      const log = server.log();
      assert.ok(log.length > 4);
      for (const request of log) assert.equal(request.query, '?type=PENDING');
      assert.deepEqual(
        readJson(incremental.file).map((item: { id: number }) => item.id),
        server.truth('PENDING').map((item) => item.id),
        'items retyped away from PENDING are gone (spec 3)',
      );
    } finally {
      await server.close();
    }
  });
});

describe('spec 9 and 5.1: environments', () => {
  it('sync --env production uses the stored production base URL and token, never the sandbox ones', async () => {
    const sandbox = await startSpecListServer({ items: 3, token: 'sandbox-token' });
    const production = await startSpecListServer({ items: 12, token: 'production-token' });
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    try {
      for (const [key, value, environment] of [
        ['baseUrl', sandbox.baseUrl, 'sandbox'],
        ['token', sandbox.token, 'sandbox'],
        ['baseUrl', production.baseUrl, 'production'],
        ['token', production.token, 'production'],
      ] as const) {
        const set = await runInProcess(['config', 'set', key, value, '--env', environment], { env });
        assert.equal(set.code, 0, set.stderr);
      }
      const run = async (args: string[], extraEnv: Record<string, string> = {}) => {
        const result = await runInProcess(['sync', '/things', '--out', tempDir(), '--json', ...args], {
          env: { ...env, ...extraEnv },
        });
        assert.equal(result.code, 0, result.stderr);
        return JSON.parse(result.stdout) as { file: string };
      };
      const viaFlag = await run(['--env', 'production']);
      assert.equal(readJson(viaFlag.file).length, 12);
      const viaVariable = await run([], { LEDGERHOOK_ENV: 'production' });
      assert.equal(readJson(viaVariable.file).length, 12);
      assert.equal(sandbox.log().length, 0, 'nothing went to the sandbox');
      assert.ok(production.log().every((request) => request.authorization === 'Bearer production-token'));
      const byDefault = await run([]);
      assert.equal(readJson(byDefault.file).length, 3, 'sandbox is the default environment');
      assert.ok(sandbox.log().every((request) => request.authorization === 'Bearer sandbox-token'));
    } finally {
      await sandbox.close();
      await production.close();
    }
  });
});
