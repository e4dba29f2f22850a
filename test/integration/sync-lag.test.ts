/**
 * A boundary that loses a row, and the lag that keeps it: a server written in the test
 * (not the mock) whose lastUpdatedDate has whole seconds and whose filter is a strict `>` at whole
 * seconds. An item changed after a read but in the same second is never sent again without a lag.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startMockServer } from '../../src/mock/mock-server.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { lookBack } from '../../src/sync/look-back.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** The server's clock is the test's: `at(ms)` moves it; items carry the ms they changed at. */
async function secondsServer() {
  let now = Date.parse('2026-11-24T10:00:05.200Z');
  const items = new Map<number, { id: number; amount: number; changedAt: number }>();
  for (let id = 1; id <= 3; id += 1) items.set(id, { id, amount: id, changedAt: Date.parse('2026-11-24T09:00:00Z') });
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const http = createServer((request, response) => {
    // Spec 4.3: lastUpdatedDate travels as a request header.
    const since = request.headers.lastupdateddate;
    const after = typeof since === 'string' ? seconds(Date.parse(since)) : undefined;
    const data = [...items.values()]
      .filter((item) => after === undefined || seconds(item.changedAt) > after)
      .map(({ id, amount }) => ({ id, amount }));
    const stamp = new Date(seconds(now) * 1000).toISOString().replace('.000Z', 'Z');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data, lastUpdatedDate: stamp }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rest/v5`,
    at: (iso: string) => {
      now = Date.parse(iso);
    },
    change: (id: number, amount: number) => items.set(id, { id, amount, changedAt: now }),
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe('sync --lag: no row lost at a whole-second boundary', () => {
  it('without a lag the change in the same second is lost; with 1 s it is read again and converges', async () => {
    for (const lagMs of [0, 1000]) {
      const server = await secondsServer();
      const dir = tempDir();
      const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
      const sync = () =>
        syncDataset({ baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { lagMs } });
      try {
        assert.equal((await sync()).mode, 'full'); // read at 10:00:05.200, stamped 10:00:05
        server.at('2026-11-24T10:00:05.600Z');
        server.change(2, 200); // after the read, in the same second
        server.at('2026-11-24T10:00:09.000Z');
        const next = await sync();
        assert.equal(next.mode, 'incremental');
        const amounts = JSON.parse(readFileSync(store.fileFor({ userId: '', dataset: '/invoices' }), 'utf8')).map(
          (item: { amount: number }) => item.amount,
        );
        if (lagMs === 0) assert.deepEqual(amounts, [1, 2, 3], 'the boundary loses the change (why the lag exists)');
        else assert.deepEqual(amounts, [1, 200, 3]);
      } finally {
        await server.close();
      }
    }
  });

  it('moves ISO date-times in the server form (zone, offset or none; its fraction); anything else is sent as stored', () => {
    assert.equal(lookBack('2026-11-24T10:00:05Z', 1000), '2026-11-24T10:00:04Z');
    assert.equal(lookBack('2026-11-24T10:00:05.250Z', 1000), '2026-11-24T10:00:04.250Z');
    assert.equal(lookBack('2026-11-24T10:00:05+01:00', 1000), '2026-11-24T10:00:04+01:00');
    assert.equal(lookBack('2026-01-01T00:00:00+0530', 1000), '2025-12-31T23:59:59+0530');
    assert.equal(lookBack('2026-11-24T10:00:05', 1000), '2026-11-24T10:00:04');
    assert.equal(lookBack('2026-11-24T10:00:05.123456Z', 1000), '2026-11-24T10:00:04.123456Z');
    // Cut, never rounded up: a lag only looks further back.
    assert.equal(lookBack('2026-11-24T10:00:05Z', 1500), '2026-11-24T10:00:03Z');
    assert.equal(lookBack('opaque-cursor-7', 1000), 'opaque-cursor-7');
    assert.equal(lookBack('2026-11-24T10:00:05Z', 0), '2026-11-24T10:00:05Z');
  });

  it('--lag on the command line: a duration, refused otherwise', async () => {
    const server = await secondsServer();
    try {
      const env = { LEDGERHOOK_TOKEN: 't', LEDGERHOOK_CONFIG_DIR: tempDir() };
      const out = tempDir();
      const args = ['sync', 'invoices', '--base-url', server.baseUrl, '--out', out, '--lag', '1s', '--json'];
      // The incremental run that reads the change again is the spawned bin; the others run in process.
      assert.equal((await runInProcess(args, { env })).code, 0);
      server.at('2026-11-24T10:00:05.600Z');
      server.change(3, 300);
      server.at('2026-11-24T10:00:09.000Z');
      const next = JSON.parse((await runCli(args, { env })).stdout);
      assert.equal(next.mode, 'incremental');
      assert.deepEqual(
        JSON.parse(readFileSync(next.file, 'utf8')).map((item: { amount: number }) => item.amount),
        [1, 2, 300],
      );
      const bad = await runInProcess(['sync', 'invoices', '--lag', 'soon'], { env });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--lag takes a duration/);
    } finally {
      await server.close();
    }
  });
});

describe('mock --since and --granularity: the boundary habits of a real server, on the mock', () => {
  /** A full sync, a change in the same second as that read, then an incremental sync. */
  async function boundaryRun(mockOptions: Parameters<typeof startMockServer>[0], lagMs: number) {
    let now = Date.parse('2026-11-24T10:00:05.200Z');
    const mock = await startMockServer({ port: 0, items: 5, otherItems: 5, now: () => now, ...mockOptions });
    const dir = tempDir();
    const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
    const sync = () =>
      syncDataset({ baseUrl: mock.url, token: mock.token, path: '/invoices', store, read: { lagMs }, now: () => now });
    try {
      await sync();
      now = Date.parse('2026-11-24T10:00:05.600Z');
      mock.service.mutate({ path: '/invoices', update: 1 });
      now = Date.parse('2026-11-24T10:00:09.000Z');
      await sync();
      const local = JSON.parse(readFileSync(store.fileFor({ userId: '', dataset: '/invoices' }), 'utf8'));
      const truth = mock.service.dataset('/invoices').data;
      return { same: JSON.stringify(local) === JSON.stringify(truth) };
    } finally {
      await mock.close();
    }
  }

  it('exclusive at whole seconds loses a same-second change without a lag; inclusive, or --lag 1s, does not', async () => {
    assert.equal((await boundaryRun({ granularity: 's', since: 'exclusive' }, 0)).same, false);
    assert.equal((await boundaryRun({ granularity: 's', since: 'exclusive' }, 1000)).same, true);
    assert.equal((await boundaryRun({ granularity: 's', since: 'inclusive' }, 0)).same, true);
    assert.equal((await boundaryRun({}, 0)).same, true, 'the default (ms, exclusive) loses nothing');
  });
});
