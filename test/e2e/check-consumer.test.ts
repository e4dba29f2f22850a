/**
 * `ledgerhook check-consumer` as a user runs it (the built bin), against the example consumer
 * (examples/consumer-app: the receiver SDK, syncDataset and the file store), against the same app
 * with its planted bug (it ignores a delivery it has seen before), and (the same command in process)
 * against the consumer written from the spec (test/helpers/spec-consumer.ts, in this process) with a
 * planted race bug; on loopback, ports chosen free. Stopped with Ctrl-C, it ends a state command's
 * whole process group at once.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { CONSUMER_CASE_TABLE } from '../../src/consumer-check/consumer-case-table.js';
import { DEFAULT_MOCK_TOKEN } from '../../src/defaults.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { isRunning, untilEnded } from '../helpers/processes.js';
import { startSpecConsumer } from '../helpers/spec-consumer.js';
import { type RunningApp, SECRET, startApp } from '../receiver/helpers.js';

const APP = fileURLToPath(new URL('../../examples/consumer-app/app.ts', import.meta.url));
const PRINT_STATE = fileURLToPath(new URL('../../examples/consumer-app/print-state.ts', import.meta.url));

/**
 * The example's print-state.ts as one plain .mjs: the command a user with a built app would give,
 * started without tsx (each poll of the state runs it once).
 */
async function bundledPrintState(): Promise<string> {
  const outfile = join(tempDir(), 'print-state.mjs');
  await build({
    entryPoints: [PRINT_STATE],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // Some of the store's dependencies are CommonJS: inside an ES module they need a real require.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return outfile;
}

/** A port nothing listens on now, for the emulated service: the consumer must be told it before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startConsumer(options: { bug?: boolean } = {}) {
  const mockPort = await freePort();
  const dataDir = tempDir('ledgerhook-consumer-');
  const app = await startApp(APP, {
    API_URL: `http://127.0.0.1:${mockPort}/rest/v5`,
    DATA_DIR: dataDir,
    ...(options.bug ? { PLANTED_BUG: 'skip-seen-deliveries' } : {}),
  });
  return { app, mockPort, dataDir, stateUrl: app.url.replace(/\/webhooks$/, '/state') };
}

// Each test has its own ports, consumer and mock: they run side by side, mostly waiting on settle windows.
describe('ledgerhook check-consumer against real consumers', { concurrency: true }, () => {
  const apps: RunningApp[] = [];
  after(async () => {
    for (const app of apps) await app.stop();
  });

  it('passes the example app: every required case converges; the lost webhook is reported as a limitation', async () => {
    const consumer = await startConsumer();
    apps.push(consumer.app);
    const args = ['check-consumer', '--to', consumer.app.url, '--state', consumer.stateUrl];
    // A short settle: converging cases are judged as soon as they converge (polled); only the lost
    // webhook waits it out. A burst of 100 is enough to show coalescing (500 is the default).
    const result = await runCli(
      [...args, '--mock-port', String(consumer.mockPort), '--settle', '3s', '--burst', '100', '--json'],
      {
        env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
        timeoutMs: 180_000,
      },
    );
    const report = JSON.parse(result.stdout);
    const verdicts = Object.fromEntries(report.cases.map((c: { id: string; verdict: string }) => [c.id, c.verdict]));
    assert.deepEqual(
      verdicts,
      {
        ...Object.fromEntries(CONSUMER_CASE_TABLE.map((c) => [c.id, 'converged'])),
        'lost-webhook': 'not-converged',
      },
      result.stdout,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([report.ok, report.passed, report.failed, report.limitations], [true, true, [], ['lost-webhook']]);
    const byId = new Map(report.cases.map((c: { id: string }) => [c.id, c]));
    const burst = byId.get('burst') as { deliveries: { sent: number; statusCounts: Record<string, number> } };
    assert.deepEqual(burst.deliveries, { sent: 100, statusCounts: { 200: 100 }, networkErrors: 0 });
    assert.match((byId.get('rate-limited') as { detail: string }).detail, /the API answered 429 [1-9]\d* times?/);
    assert.deepEqual((byId.get('retype-out-of-filter') as { datasets: string[] }).datasets, [
      '/expenses',
      '/expenses?type=PENDING',
    ]);
    assert.match((byId.get('lost-webhook') as { detail: string }).detail, /only a reconcile .* catches this/);
    assert.equal(report.apiUrl, `http://127.0.0.1:${consumer.mockPort}/rest/v5`);
  });

  it('catches the planted bug: the same delivery after a change is skipped, the case fails naming what differs', async () => {
    const consumer = await startConsumer({ bug: true });
    apps.push(consumer.app);
    // The state by a command this time (run without a shell), as a user with no state route would.
    const state = `"${process.execPath}" ${await bundledPrintState()} ${consumer.dataDir}`;
    const result = await runCli(
      [
        'check-consumer',
        '--to',
        consumer.app.url,
        '--state',
        state,
        '--mock-port',
        String(consumer.mockPort),
        '--only',
        'duplicate-after-change',
        '--settle',
        '4s',
      ],
      { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET }, timeoutMs: 120_000 },
    );
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^baseline\s+ok\s+converged in \d+\.\d s$/m);
    assert.match(
      result.stdout,
      /^duplicate-after-change\s+FAIL\s+not converged within 4\.0 s: \/expenses: 1 missing \(\d+\), 2 different \(\d+: [a-z ]*amount/m,
    );
    assert.match(result.stdout, /1 of 2 required cases did not converge: duplicate-after-change$/m);
    // The cases send only valid deliveries, and say where the forged ones are.
    assert.match(
      result.stdout,
      /^signatures not checked: these cases send only valid deliveries; `ledgerhook check-receiver --to http:\/\/127\.0\.0\.1:\d+\/webhooks` sends forged and altered ones \(or add --with-receiver-checks\)$/m,
    );
    assert.match(
      result.stderr.trimEnd().split('\n').at(-1) ?? '',
      /^error: the consumer did not converge in 1 case: duplicate-after-change$/,
    );
  });

  it('fails change-during-fetch for a consumer that drops a delivery arriving during its read, the receiver battery run first', async () => {
    const mockPort = await freePort();
    const consumer = await startSpecConsumer({
      secret: SECRET,
      bug: 'drop-during-read',
      apiUrl: `http://127.0.0.1:${mockPort}/rest/v5`,
      token: DEFAULT_MOCK_TOKEN,
    });
    try {
      // In process (the same command module and output): the spawned bin is the two tests above.
      const result = await runInProcess(
        [
          'check-consumer',
          '--to',
          consumer.url,
          '--state',
          consumer.stateUrl,
          '--mock-port',
          String(mockPort),
          '--only',
          'change-during-fetch',
          '--settle',
          '2s',
          '--with-receiver-checks',
        ],
        { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } },
      );
      assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /^baseline\s+ok\s+converged in \d+\.\d s$/m);
      assert.match(
        result.stdout,
        /^change-during-fetch\s+FAIL\s+not converged within 2\.0 s: \/expenses: 1 different \(\d+: amount\)$/m,
      );
      assert.match(result.stdout, /^signatures: all \d+ required check-receiver cases hold$/m);
      assert.match(
        result.stderr.trimEnd().split('\n').at(-1) ?? '',
        /^error: the consumer did not converge in 1 case: change-during-fetch$/,
      );
    } finally {
      await consumer.close();
    }
  });

  it('Ctrl-C while a state command runs: exit 130 at once, the command and what it left running ended', async () => {
    const file = join(tempDir(), 'pids');
    // The shell, and a sleep it leaves holding the output open: the check must not wait for either.
    const cli = startCli(
      [
        'check-consumer',
        '--to',
        'http://127.0.0.1:9/webhooks',
        '--state',
        `sh -c 'echo $$ > ${file}; sleep 40 & echo $! >> ${file}; wait'`,
        '--mock-port',
        '0',
      ],
      { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } },
    );
    const deadline = Date.now() + 15_000;
    let pids: number[] = [];
    while (pids.length < 2) {
      if (Date.now() > deadline) throw new Error(`no pids in ${file}: ${cli.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        pids = readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {}
    }
    assert.ok(pids.every(isRunning));
    const stopped = Date.now();
    const exit = await cli.stop('SIGINT');
    assert.equal(exit.code, 130, cli.stderr());
    assert.ok(Date.now() - stopped < 5000, `exited ${Date.now() - stopped} ms after Ctrl-C`);
    await untilEnded(pids);
  });
});
