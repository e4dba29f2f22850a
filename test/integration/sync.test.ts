import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startMockServer } from '../../src/api/mock.js';
import { FileStore, paginate, syncDataset } from '../../src/api/sync.js';
import { datasetKey } from '../../src/store/identity.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecListServer, type Fault } from '../helpers/spec-list-server.js';

const noSleep = async () => {};
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const newStore = (outDir = tempDir()) => new FileStore({ outDir, stateFile: join(tempDir(), 'state.json') });
const fileOf = (store: FileStore, path: string, filter: Record<string, string> = {}) =>
  store.fileFor({ userId: '', dataset: datasetKey(path, filter) });

describe('sync against the mock service (CLI)', () => {
  // The CLI runs in-process (runInProcess: the same definitions, command modules and exit-code
  // mapping); two runs stay spawned end to end: the first sync of the file-format test (a real
  // process writes the file and prints the --json summary) and one refused run (exit 3, one line).
  // One limit through the CLI (target resolution, --type, --json summary: a full run and an
  // incremental one); the paging limits 1, 7, 100 and 1000 run the full + two incremental
  // rounds through syncDataset in-process below. Two rounds cover both states an incremental
  // read can start from (one a full read left, one an incremental read left); a third round
  // started from the same kind of state as the second and proved nothing new.
  for (const limit of [7]) {
    it(`full, then incremental rounds equal the mock's dataset (limit ${limit}, with and without type=PENDING)`, async () => {
      const mock = await startMockServer({ port: 0, items: limit === 1 ? 60 : 230, seed: limit });
      const out = tempDir();
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
      const base = ['--base-url', mock.url, '--token', mock.token, '--out', out, '--limit', String(limit), '--json'];
      try {
        for (const [target, extra, filter] of [
          ['expenses', [], {}],
          ['/expenses/expenses', ['--type', 'PENDING'], { type: 'PENDING' }],
        ] as const) {
          const first = await runInProcess(['sync', target, ...extra, ...base], { env });
          assert.equal(first.code, 0, first.stderr);
          const summary = JSON.parse(first.stdout);
          assert.equal(summary.mode, 'full');
          assert.deepEqual(
            readJson(summary.file),
            mock.service.dataset(target === 'expenses' ? '/expenses' : target, filter).data,
          );
          const cliRounds = 1; // two rounds: in-process below
          for (let round = 0; round < cliRounds; round += 1) {
            mock.service.mutate({ path: '/expenses', create: 2 + round, update: 3, delete: 2, retype: 2 });
            const next = await runInProcess(['sync', target, ...extra, ...base], { env });
            assert.equal(next.code, 0, next.stderr);
            const incremental = JSON.parse(next.stdout);
            assert.equal(incremental.mode, 'incremental');
            assert.deepEqual(
              readJson(incremental.file),
              mock.service.dataset(target === 'expenses' ? '/expenses' : target, filter).data,
              `round ${round}`,
            );
            for (const key of ['dataset', 'mode', 'pages', 'upserted', 'deleted', 'total', 'lastUpdatedDate', 'file'])
              assert.ok(key in incremental, key);
          }
        }
      } finally {
        await mock.close();
      }
    });
  }

  for (const limit of [1, 7, 100, 1000]) {
    it(`full, then incremental rounds equal the mock's dataset (limit ${limit}, with and without type=PENDING; in-process)`, async () => {
      const mock = await startMockServer({ port: 0, items: limit === 1 ? 60 : 230, seed: limit });
      const store = newStore();
      try {
        for (const [path, filter] of [
          ['/expenses', {}],
          ['/expenses/expenses', { type: 'PENDING' }],
        ] as Array<[string, Record<string, string>]>) {
          const sync = () =>
            syncDataset({ baseUrl: mock.url, token: mock.token, path, filter, read: { limit }, store });
          const first = await sync();
          assert.equal(first.mode, 'full');
          assert.deepEqual(readJson(fileOf(store, path, filter)), mock.service.dataset(path, filter).data);
          for (let round = 0; round < 2; round += 1) {
            mock.service.mutate({ path: '/expenses', create: 2 + round, update: 3, delete: 2, retype: 2 });
            const next = await sync();
            assert.equal(next.mode, 'incremental');
            assert.deepEqual(
              readJson(fileOf(store, path, filter)),
              mock.service.dataset(path, filter).data,
              `round ${round}`,
            );
          }
        }
      } finally {
        await mock.close();
      }
    });
  }

  it("writes one item per line, sorted by id, as valid JSON; stores the server's lastUpdatedDate; state list/show/reset", async () => {
    const mock = await startMockServer({ port: 0, items: 30 });
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const result = await runCli(
      ['sync', 'expense', '--base-url', mock.url, '--token', mock.token, '--out', out, '--json'],
      { env },
    );
    const summary = JSON.parse(result.stdout);
    const lines = readFileSync(summary.file, 'utf8').split('\n');
    assert.equal(lines[0], '[');
    assert.equal(lines.at(-2), ']');
    assert.equal(lines.length, 30 + 3);
    assert.equal(summary.file, join(out, 'expenses.json'));
    const list = JSON.parse((await runInProcess(['state', 'list', '--json'], { env })).stdout);
    const record = Object.values(
      list.datasets as Record<string, { dataset: string; lastUpdatedDate: string; items: number }>,
    ).find((entry) => entry.dataset === '/expenses');
    assert.ok(record);
    assert.equal(record.lastUpdatedDate, summary.lastUpdatedDate);
    assert.equal(record.items, 30);
    const show = await runInProcess(['state', 'show', 'expenses', '--json'], { env });
    assert.equal(show.code, 0);
    const reset = await runInProcess(['state', 'reset', 'expenses'], { env });
    assert.equal(reset.code, 0);
    const again = JSON.parse(
      (
        await runInProcess(
          ['sync', 'expenses', '--base-url', mock.url, '--token', mock.token, '--out', out, '--json'],
          { env },
        )
      ).stdout,
    );
    assert.equal(again.mode, 'full');
    const missing = await runInProcess(['state', 'show', 'invoices'], { env });
    assert.equal(missing.code, 2);
    await mock.close();
  });

  it('--all syncs every entity; /userTaxSetup is saved as a document; --dry-run writes nothing', async () => {
    const mock = await startMockServer({ port: 0, items: 20 });
    const out = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const dry = await runInProcess(
      [
        'sync',
        '--all',
        '--base-url',
        mock.url,
        '--token',
        mock.token,
        '--out',
        join(out, 'dry'),
        '--dry-run',
        '--json',
      ],
      { env },
    );
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(existsSync(join(out, 'dry')), false);
    const all = await runInProcess(
      ['sync', '--all', '--base-url', mock.url, '--token', mock.token, '--out', out, '--json'],
      {
        env,
      },
    );
    assert.equal(all.code, 0, all.stderr);
    const datasets = JSON.parse(all.stdout).datasets;
    assert.equal(datasets.length, 24);
    const taxSetup = datasets.find((d: { dataset: string }) => d.dataset === '/userTaxSetup');
    assert.equal(taxSetup.mode, 'document');
    assert.equal(typeof readJson(taxSetup.file).filingStatus, 'string');
    const state = JSON.parse((await runInProcess(['state', 'list', '--json'], { env })).stdout);
    assert.equal(Object.keys(state.datasets).length, 24);
    await mock.close();
  });

  it('settles values from the environment and settings, and refuses bad input with one line', async () => {
    const mock = await startMockServer({ port: 0, items: 5 });
    const configDir = tempDir();
    const out = tempDir();
    const viaEnv = await runInProcess(['sync', 'expenses', '--out', out, '--json'], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir, LEDGERHOOK_BASE_URL: mock.url, LEDGERHOOK_TOKEN: mock.token },
    });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    await runInProcess(['config', 'set', 'baseUrl', mock.url], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    await runInProcess(['config', 'set', 'token', mock.token], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    const viaSettings = await runInProcess(['sync', 'invoices', '--out', out], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    assert.equal(viaSettings.code, 0, viaSettings.stderr);
    for (const [args, code, pattern] of [
      [['sync', 'expnses', '--base-url', mock.url, '--token', 't'], 2, /did you mean expense/],
      // sandbox: the local environment would fall back to the mock's address and token.
      [['sync', 'expenses', '--token', 't', '--env', 'sandbox'], 2, /no base URL/],
      [['sync', 'expenses', '--base-url', mock.url, '--env', 'sandbox'], 2, /no access token/],
      [['sync', 'expenses', '--base-url', mock.url, '--token', 'wrong'], 4, /401.*token was rejected/],
      // --max-wait: a refused connection is otherwise retried 5 times with backoff (up to ~4 s).
      [
        ['sync', 'expenses', '--base-url', 'http://127.0.0.1:1/rest/v5', '--token', 't', '--max-wait', '100ms'],
        3,
        /nothing is listening/,
      ],
      [['sync', 'unicorns'.replace('unicorns', '/unicorns'), '--base-url', mock.url, '--token', mock.token], 3, /404/],
      [['sync', 'expenses', '--limit', '0', '--base-url', mock.url, '--token', 't'], 2, /limit/],
      [['sync'], 2, /say what to sync/],
    ] as const) {
      // The rejected token runs as a real process (exit 3, one line); the other rows in-process.
      const run = pattern.source.includes('token was rejected') ? runCli : runInProcess;
      const result = await run([...args, '--out', tempDir()], { env: { LEDGERHOOK_CONFIG_DIR: tempDir() } });
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assertOneLineError(result);
    }
    await mock.close();
  });
});

describe('sync against an independent server (library)', () => {
  for (const deletedIdsOn of ['first', 'last', 'every'] as const) {
    for (const limit of [1, 7, 100]) {
      it(`converges with deletedIds on the ${deletedIdsOn} page, limit ${limit}, items in scrambled order`, async () => {
        const server = await startSpecListServer({ items: 40, deletedIdsOn, scrambled: true });
        const store = newStore();
        try {
          for (const filter of [{}, { type: 'PENDING' }] as Array<Record<string, string>>) {
            const sync = () =>
              syncDataset({
                baseUrl: server.baseUrl,
                token: server.token,
                path: server.path,
                filter,
                read: { limit },
                store,
              });
            let summary = await sync();
            assert.deepEqual(readJson(fileOf(store, server.path, filter)), server.truth(filter.type));
            // Two rounds: an incremental read from a full read's state, then from an incremental's.
            for (let round = 0; round < 2; round += 1) {
              server.mutate({ create: 3, update: 4, delete: 2, retype: 2 });
              summary = await sync();
              assert.equal(summary.mode, 'incremental');
              assert.deepEqual(
                readJson(fileOf(store, server.path, filter)),
                server.truth(filter.type),
                `${JSON.stringify(filter)} round ${round}`,
              );
            }
          }
        } finally {
          await server.close();
        }
      });
    }
  }

  it('retries through 500, 503, 429 with Retry-After, reset connections and truncated JSON', async () => {
    const faults: Fault[] = ['500', '503', '429', 'reset', 'truncated'];
    const server = await startSpecListServer({
      items: 60,
      faultFor: (n) => (n % 3 === 0 ? faults[(n / 3) % faults.length] : undefined),
    });
    const outDir = tempDir();
    const store = newStore(outDir);
    const retries: string[] = [];
    const sync = () =>
      syncDataset({
        baseUrl: server.baseUrl,
        token: server.token,
        path: server.path,
        read: { limit: 7 },
        store,
        onProgress: (e) => e.type === 'retry' && retries.push(e.reason),
      });
    await sync();
    assert.deepEqual(readJson(readdirSync(outDir).map((f) => join(outDir, f))[0]!), server.truth());
    server.mutate({ create: 5, update: 5, delete: 3 });
    await sync();
    assert.deepEqual(readJson(fileOf(store, server.path)), server.truth());
    assert.ok(
      retries.some((r) => /429/.test(r)) &&
        retries.some((r) => /50[03]/.test(r)) &&
        retries.some((r) => /not JSON|closed/.test(r)),
      retries.join('\n'),
    );
    await server.close();
  });

  it('fails without touching file or state on a body that is not an envelope, and on a cursor loop', async () => {
    for (const fault of ['not-envelope', 'cursor-loop'] as const) {
      let armed = false;
      const server = await startSpecListServer({ items: 30, faultFor: () => (armed ? fault : undefined) });
      const outDir = tempDir();
      const store = newStore(outDir);
      const sync = () =>
        syncDataset({ baseUrl: server.baseUrl, token: server.token, path: server.path, read: { limit: 5 }, store });
      await sync();
      const file = fileOf(store, server.path);
      const before = readFileSync(file, 'utf8');
      const state = JSON.stringify(await store.records());
      server.mutate({ create: 20, update: 3 });
      armed = true;
      await assert.rejects(
        syncDataset({
          baseUrl: server.baseUrl,
          token: server.token,
          path: server.path,
          read: { limit: 5, full: true },
          store,
        }),
        { code: 'ERR_BAD_RESPONSE' },
      );
      assert.equal(readFileSync(file, 'utf8'), before);
      assert.equal(JSON.stringify(await store.records()), state);
      assert.deepEqual(readdirSync(outDir), ['things.json'], 'no temporary file left');
      await server.close();
    }
  });

  it('rides out 5xx within the wait budget, then gives up with a clear message', async () => {
    const server = await startSpecListServer({ items: 5, faultFor: () => '503' });
    await assert.rejects(
      syncDataset({
        baseUrl: server.baseUrl,
        token: server.token,
        path: server.path,
        store: newStore(),
        sleep: noSleep,
        limits: { maxWaitMs: 5000 },
      }),
      (error: Error & { code: string }) =>
        error.code === 'ERR_HTTP_STATUS' &&
        /503.*gave up after \d+ attempts and \d+ s of waiting, the 5 s wait budget/.test(error.message),
    );
    // Not a count of attempts but of waiting: how many requests fit in 5 s of random backoff varies.
    assert.ok(server.requests() >= 2, `${server.requests()} requests`);
    await server.close();
  });

  it('keeps an id that is in data even when deletedIds names it too', async () => {
    let incremental = false;
    const server = createServer((req, res) => {
      const since = req.headers.lastupdateddate;
      const body = !since
        ? {
            data: [
              { id: 1, v: 'a' },
              { id: 2, v: 'a' },
              { id: 3, v: 'a' },
            ],
            lastUpdatedDate: '2026-01-01T00:00:00.000Z',
          }
        : { data: [{ id: 2, v: 'b' }], deletedIds: [2, 3], lastUpdatedDate: '2026-01-01T00:00:01.000Z' };
      incremental ||= Boolean(since);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const outDir = tempDir();
    const store = newStore(outDir);
    await syncDataset({ baseUrl, token: 't', path: '/x', store });
    const summary = await syncDataset({ baseUrl, token: 't', path: '/x', store });
    assert.ok(incremental);
    assert.deepEqual(readJson(fileOf(store, '/x')), [
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ]);
    assert.equal(summary.deleted, 1);
    assert.equal((await store.records())[0]?.[1].lastUpdatedDate, '2026-01-01T00:00:01.000Z');
    server.close();
  });

  it('paginate yields the pages of spec 4.3 with the sample request headers', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      const page = req.headers.cursor
        ? { data: [{ id: 2 }], lastUpdatedDate: '2026-01-01T00:00:00.000Z' }
        : { data: [{ id: 1 }], lastUpdatedDate: '2026-01-01T00:00:00.000Z', cursor: 'c1' };
      res.writeHead(200).end(JSON.stringify(page));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`;
    const pages = [];
    for await (const page of paginate({
      baseUrl,
      token: 'tok',
      path: '/expenses/expenses',
      filter: { type: 'PENDING' },
      limit: 1,
      lastUpdatedDate: '2025-12-31T00:00:00.000Z',
    }))
      pages.push(page);
    assert.equal(pages.length, 2);
    assert.equal(seen[0]!.authorization, 'Bearer tok');
    assert.equal(seen[0]!['content-type'], 'application/json');
    assert.equal(seen[0]!.limit, '1');
    assert.equal(seen[0]!.cursor, undefined, 'no cursor on the first request');
    assert.equal(seen[1]!.cursor, 'c1');
    assert.equal(seen[0]!.lastupdateddate, '2025-12-31T00:00:00.000Z');
    server.close();
  });

  it('rebuilds with a full read when the state exists but the file was deleted', async () => {
    const server = await startSpecListServer({ items: 10 });
    const outDir = tempDir();
    const store = newStore(outDir);
    await syncDataset({ baseUrl: server.baseUrl, token: server.token, path: server.path, store });
    const { rmSync } = await import('node:fs');
    rmSync(fileOf(store, server.path));
    const second = await syncDataset({
      baseUrl: server.baseUrl,
      token: server.token,
      path: server.path,
      store,
    });
    assert.equal(second.mode, 'full');
    assert.deepEqual(readJson(fileOf(store, server.path)), server.truth());
    await server.close();
  });
});
