import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { parseRateLimit, resolveStoreUrl } from '../../src/cli/resolve-scale.js';
import { queueTarget } from '../../src/queue/queue-target.js';
import { assertOneLineError, BIN, runCli, tempDir } from '../helpers/cli.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from './helpers/services.js';

const skip = await servicesSkip();
const HEAVY = /(^|\/)(bullmq|pg|ioredis|rate-limiter-flexible|undici|conf|ora)(\/|$)/;

/** The bare package names a CLI process resolves, recorded by a module resolve hook. */
function resolvedPackages(args: string[]): string[] & { stdout?: string } {
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
    env: { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, NO_COLOR: '1' },
    input: '',
    encoding: 'utf8',
  });
  assert.ok(result.status !== null, result.stderr);
  const packages: string[] & { stdout?: string } = spawnSync('cat', [log], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  packages.stdout = result.stdout;
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
      if (args[0] === 'worker') assert.match(packages.stdout ?? '', /Examples:\n\s+\$ ledgerhook /);
    }
    assert.ok(
      resolvedPackages(['queue', 'status', '--queue', 'redis://127.0.0.1:1']).some((name) => HEAVY.test(name)),
      'the hook sees the packages a queue command loads',
    );
  });

  it('every new command and subcommand has examples in --help', async () => {
    // worker --help: checked in the process of the test above.
    for (const args of [['queue', 'status'], ['store', 'migrate'], ['listen']]) {
      const result = await runCli([...args, '--help']);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /Examples:\n\s+\$ ledgerhook /);
    }
  });

  const badInput: Array<{ args: string[]; code: number; message: RegExp }> = [
    { args: ['queue', 'status'], code: 2, message: /no queue: pass --queue/ },
    {
      args: ['queue', 'status', '--queue', 'redis://:pw@127.0.0.1:1'],
      code: 3,
      message: /cannot reach the Redis queue redis:\/\/:\*\*\*@/,
    },
    { args: ['store', 'migrate'], code: 2, message: /no store/ },
    {
      args: ['store', 'migrate', '--store', 'postgres://u:pw@127.0.0.1:1/x'],
      code: 3,
      message: /cannot reach the Postgres store postgres:\/\/u:\*\*\*@/,
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
      const result = await runCli(row.args, { env: { LEDGERHOOK_QUEUE: undefined, LEDGERHOOK_STORE: undefined } });
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
      const status = await runCli(['queue', 'status', '--queue', REDIS_URL, '--queue-name', queueName, '--json']);
      assert.equal(status.code, 0, status.stderr);
      assert.deepEqual(JSON.parse(status.stdout), {
        queue: queueName,
        waiting: 0,
        active: 0,
        delayed: 0,
        failed: 0,
        completed: 0,
        backlog: [],
        backlogPartial: false,
      });
      const first = await runCli(['store', 'migrate', '--json'], { env: { LEDGERHOOK_STORE: schema.url } });
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout).applied, [1]);
      const again = await runCli(['store', 'migrate'], { env: { LEDGERHOOK_STORE: schema.url } });
      assert.match(again.stdout, /up to date \(schema version 1\)/);
    } finally {
      await schema.drop();
      await dropQueueKeys(queueName);
    }
  });
});
