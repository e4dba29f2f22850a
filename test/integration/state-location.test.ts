import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startMockServer } from '../../src/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

async function withMock(run: (mock: Awaited<ReturnType<typeof startMockServer>>) => Promise<void>) {
  const mock = await startMockServer({ port: 0, items: 30 });
  try {
    await run(mock);
  } finally {
    await mock.close();
  }
}

// The first sync is the spawned bin, as a user runs it; every other run is the same command in process
// (runInProcess: the same definitions, command modules and exit-code mapping), without a cold start.
describe('state belongs to the data it describes', () => {
  it('two folders synced from one mock both stay incremental, and state list shows both', async () => {
    await withMock(async (mock) => {
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_TOKEN: mock.token };
      const [a, b] = [tempDir(), tempDir()];
      const sync = (out: string, run = runInProcess) =>
        run(['sync', 'invoices', '--base-url', mock.url, '--out', out], { env });
      const first = [await sync(a, runCli), await sync(b)];
      for (const [index, result] of first.entries()) {
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /full/);
        assert.match(result.stdout, /first sync of this dataset into/);
        assert.ok(result.stdout.includes(index === 0 ? a.split('/').pop()! : b.split('/').pop()!), result.stdout);
      }
      for (const out of [a, b, a]) {
        const again = await sync(out);
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stdout, /incremental/, `${out}: ${again.stdout}`);
      }
      const list = JSON.parse((await runInProcess(['state', 'list', '--json'], { env })).stdout);
      const files = (list.datasets as Array<{ data: string }>).map((record) => record.data);
      assert.deepEqual(files.sort(), [join(a, 'invoices.json'), join(b, 'invoices.json')].sort());
    });
  });

  it('every full read says why: --full, data gone', async () => {
    await withMock(async (mock) => {
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir(), LEDGERHOOK_TOKEN: mock.token };
      const out = tempDir();
      const args = ['sync', 'invoices', '--base-url', mock.url, '--out', out];
      assert.equal((await runInProcess(args, { env })).code, 0);
      const full = await runInProcess([...args, '--full', '--json'], { env });
      assert.equal(JSON.parse(full.stdout).fullReason, 'requested');
      assert.match((await runInProcess([...args, '--full'], { env })).stdout, /\(--full\)/);
      rmSync(join(out, 'invoices.json'));
      const gone = await runInProcess(args, { env });
      assert.match(gone.stdout, /full, .*its data was gone/);
    });
  });

  it('a wrong token against an existing file says the 401 first, and the ownership beside it', async () => {
    await withMock(async (mock) => {
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
      const out = tempDir();
      const args = ['sync', 'invoices', '--base-url', mock.url, '--out', out];
      assert.equal((await runInProcess(args, { env: { ...env, LEDGERHOOK_TOKEN: mock.token } })).code, 0);
      const wrong = await runInProcess(args, { env: { ...env, LEDGERHOOK_TOKEN: 'not-the-token' } });
      assert.equal(wrong.code, 4, wrong.stderr);
      assert.match(wrong.stderr, /answered 401.*besides, .*another access token/);
    });
  });
});
