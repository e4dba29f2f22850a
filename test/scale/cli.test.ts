import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { parseRateLimit, resolveStoreUrl } from '../../src/cli/resolve-scale.js';
import { startMockServer } from '../../src/mock/mock-server.js';
import { queueTarget } from '../../src/queue/queue-target.js';
import { assertOneLineError, BIN, type CliResult, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';

const skip = await servicesSkip();
const HEAVY = /(^|\/)(bullmq|pg|ioredis|rate-limiter-flexible|undici|conf|ora)(\/|$)/;

/**
 * The bare package names a CLI process resolves, recorded by a module resolve hook; `result` is
 * the process's exit code and output, so that one spawn can also be checked as a user's run.
 */
function resolvedPackages(args: string[]): string[] & { result?: CliResult } {
  const dir = tempDir();
  const log = join(dir, 'resolved.log');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('file:') && !specifier.startsWith('/'))
    appendFileSync(${JSON.stringify(log)}, specifier + '\\n');
  return next(specifier, context);
}`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});`,
  );
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    env: {
      ...process.env,
      LEDGERHOOK_CONFIG_DIR: dir,
      NO_COLOR: '1',
      LEDGERHOOK_QUEUE: undefined,
      LEDGERHOOK_STORE: undefined,
    },
    input: '',
    encoding: 'utf8',
  });
  assert.ok(result.status !== null, result.stderr);
  const packages: string[] & { result?: CliResult } = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  packages.result = { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  return packages;
}

describe('scale commands', () => {
  it('--help and verify never load undici, ora, conf, pg, bullmq, ioredis or rate-limiter-flexible', () => {
    for (const args of [['--help'], ['worker', '--help'], ['verify', '--secret', 's', '-']]) {
      const packages = resolvedPackages(args);
      assert.deepEqual(
        packages.filter((name) => HEAVY.test(name)),
        [],
        `ledgerhook ${args.join(' ')} loaded a heavy package`,
      );
      // The same process also shows worker --help has its examples (one spawn, two checks).
      if (args[0] === 'worker') assert.match(packages.result?.stdout ?? '', /Examples:\n\s+\$ ledgerhook /);
    }
    // The control (the hook does see heavy packages) is the spawned row of the bad-input table below.
  });

  it('every new command and subcommand has examples in --help', async () => {
    // worker --help: checked in the spawned process of the test above; these three in-process.
    for (const args of [['queue', 'status'], ['store', 'migrate'], ['listen']]) {
      const result = await runInProcess([...args, '--help']);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /Examples:\n\s+\$ ledgerhook /);
    }
  });

  // `run` says how a row runs: in-process by default; one row per command as a real process
  // (`hooked`: spawned under the resolve hook, which also shows the hook sees what queue loads).
  const badInput: Array<{ args: string[]; code: number; message: RegExp; run?: 'spawn' | 'hooked' }> = [
    { args: ['queue', 'status'], code: 2, message: /no queue: pass --queue/ },
    {
      args: ['queue', 'status', '--queue', 'redis://:pw@127.0.0.1:1'],
      code: 3,
      message: /cannot reach the Redis queue redis:\/\/:\*\*\*@/,
      run: 'hooked',
    },
    { args: ['store', 'migrate'], code: 2, message: /no store/ },
    {
      args: ['store', 'migrate', '--store', 'postgres://u:pw@127.0.0.1:1/x'],
      code: 3,
      message: /cannot reach the Postgres store postgres:\/\/u:\*\*\*@/,
      run: 'spawn',
    },
    {
      args: ['store', 'migrate', '--store', 'postgres://u@127.0.0.1:1/x?password=pw'],
      code: 3,
      message: /password=\*\*\*/,
    },
    { args: ['worker', '--queue', 'redis://127.0.0.1:6379'], code: 2, message: /no store/ },
    { args: ['listen', '--queue', 'redis://127.0.0.1:6379'], code: 2, message: /go with --sync/ },
  ];
  // The flag checks behind --queue, --queue-name, --store and --rate-limit, called in-process (pure
  // functions); exit 2 with one line for a usage error is proven end to end by the rows above.
  const badFlags: Array<{ what: string; call: () => unknown; message: RegExp }> = [
    { what: '--queue http://x', call: () => queueTarget('http://x', undefined), message: /redis:\/\/ URL/ },
    { what: '--queue-name a:b', call: () => queueTarget('redis://127.0.0.1:6379', 'a:b'), message: /queue name/ },
    {
      what: '--store mysql://x',
      call: () => resolveStoreUrl({ store: 'mysql://x' }, { env: {} } as never),
      message: /postgres:\/\/ URL/,
    },
    { what: '--rate-limit lots', call: () => parseRateLimit('lots'), message: /REQUESTS\/SECONDS/ },
  ];
  it('refuses a non-redis --queue, a bad --queue-name, a non-postgres --store and a bad --rate-limit (usage errors)', () => {
    for (const row of badFlags)
      assert.throws(
        row.call,
        (error: Error & { code?: string }) => error.code === 'ERR_USAGE' && row.message.test(error.message),
        row.what,
      );
  });

  for (const row of badInput) {
    it(`ledgerhook ${row.args.join(' ')} → exit ${row.code}, one line, no password`, async () => {
      let result: CliResult;
      if (row.run === 'hooked') {
        const packages = resolvedPackages(row.args);
        assert.ok(
          packages.some((name) => HEAVY.test(name)),
          'the hook sees the packages a queue command loads',
        );
        result = packages.result!;
      } else if (row.run === 'spawn')
        result = await runCli(row.args, { env: { LEDGERHOOK_QUEUE: undefined, LEDGERHOOK_STORE: undefined } });
      else result = await runInProcess(row.args);
      assert.equal(result.code, row.code, result.stderr);
      assertOneLineError(result);
      assert.match(result.stderr, row.message);
      assert.doesNotMatch(result.stderr, /pw@/);
    });
  }

  it('queue status --json and store migrate --json print one JSON document', { skip }, async () => {
    const queueName = testQueueName('cli');
    const schema = await createTestSchema();
    try {
      const status = await runInProcess(['queue', 'status', '--queue', REDIS_URL, '--queue-name', queueName, '--json']);
      assert.equal(status.code, 0, status.stderr);
      assert.deepEqual(JSON.parse(status.stdout), {
        ok: true,
        queue: queueName,
        waiting: 0,
        active: 0,
        delayed: 0,
        failed: 0,
        completed: 0,
        backlog: [],
        backlogPartial: false,
        retrying: [],
      });
      const first = await runInProcess(['store', 'migrate', '--json'], { env: { LEDGERHOOK_STORE: schema.url } });
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout).applied, [1]);
      const again = await runInProcess(['store', 'migrate'], { env: { LEDGERHOOK_STORE: schema.url } });
      assert.match(again.stdout, /up to date \(schema version 1\)/);
    } finally {
      await schema.drop();
      await dropQueueKeys(queueName);
    }
  });

  it('state list|show|reset over a Postgres store: one implementation for both stores', {
    skip,
  }, async () => {
    const schema = await createTestSchema();
    const mock = await startMockServer({ port: 0, items: 12 });
    const env = { LEDGERHOOK_STORE: schema.url, LEDGERHOOK_CONFIG_DIR: tempDir() };
    try {
      const sync = ['sync', 'expenses', '--base-url', mock.url, '--token', mock.token, '--json'];
      assert.equal(JSON.parse((await runInProcess(sync, { env })).stdout).mode, 'full');
      const list = JSON.parse((await runInProcess(['state', 'list', '--json'], { env })).stdout);
      assert.equal(list.ok, true);
      assert.doesNotMatch(list.state, /:[^:@/]*@/, 'no password in the location');
      assert.equal(list.datasets.length, 1);
      assert.equal(list.datasets[0].dataset, '/expenses');
      assert.equal(list.datasets[0].items, 12);
      assert.match(list.datasets[0].data, /^ledgerhook_items in postgres:/);
      const show = JSON.parse((await runInProcess(['state', 'show', 'expenses', '--json'], { env })).stdout);
      assert.deepEqual(show.datasets, list.datasets);
      const reset = JSON.parse((await runInProcess(['state', 'reset', 'expenses', '--json'], { env })).stdout);
      assert.equal(reset.reset.length, 1);
      assert.equal(JSON.parse((await runInProcess(sync, { env })).stdout).mode, 'full');
    } finally {
      await mock.close();
      await schema.drop();
    }
  });
});
