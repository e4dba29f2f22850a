/**
 * `npm test`: lint first (fails in a second), then the JavaScript build and the test bundles
 * (esbuild), then the type-check and the tests side by side. tsc is single-threaded and the tests
 * leave gaps on 2 cores, so running them together saves the type-check's wall time. The exit code
 * is the first failure's. Arguments name test files to run instead of all of them:
 *   npm test -- test/cli/sign-verify.test.ts
 * Tests run from .test-build/ (scripts/build-tests.mjs); `node --import tsx --test FILE` runs one
 * file straight from source.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function run(command, args, { quiet = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const node = (args, options) => run(process.execPath, args, options);
const bin = (name) => join('node_modules', '.bin', name);

const lint = await run(bin('biome'), ['check', '.']);
if (lint.code !== 0) process.exit(lint.code);

const built = await Promise.all([node(['scripts/build.mjs', '--no-types']), node(['scripts/build-tests.mjs'])]);
const buildFailure = built.find((result) => result.code !== 0);
if (buildFailure) process.exit(buildFailure.code);

// The runner starts files in the order given, four at a time (on 2 cores: many files wait on
// processes, fsyncs and settle windows, and a fourth fills those gaps). Longest first, so that none
// of them starts last and runs on alone: the files that take longest (wall time, each a few seconds
// to ~15), then the rest by kind (real services, killed processes and a browser before plain units).
const LONGEST = [
  'e2e/check-consumer', // mostly waiting: the consumer check's quiet and settle windows, case after case
  'browser/inspector',
  'browser/inspector-rows',
  'scale/convergence',
  'e2e/sync-crash',
  'integration/sync',
  'scale/postgres-exact-text',
  'scale/crash',
  'scale/cli',
  'e2e/listen-replay',
  'scale/ids-as-written',
  'browser/inspector-edit',
  'integration/check-consumer-races',
  'e2e/history-bounds',
  'e2e/install-footprint',
  'e2e/sync-resume',
  'cli/json-contract',
  'e2e/listen-routes',
];
const FIRST = ['scale', 'e2e', 'browser', 'integration', 'receiver', 'cli', 'spec', 'unit'];
const startOrder = (file) => {
  const name = file.replaceAll('\\', '/').replace(/\.test\.js$/, '');
  const long = LONGEST.indexOf(name);
  if (long >= 0) return long;
  const index = FIRST.indexOf(name.split('/')[0] ?? '');
  return LONGEST.length + (index < 0 ? FIRST.length : index);
};

// Node 20 reads NODE_EXTRA_CA_CERTS (set on some machines, e.g. this project's CI) at every process
// start, ~50 ms of CPU each, where Node 22+ reads it only for a TLS connection; the suite starts
// hundreds of processes and sends traffic only to loopback (no TLS, no certificate), so its
// processes go without it (on Node 20 that is about a fifth of the suite's CPU time).
const testEnv = { ...process.env };
delete testEnv.NODE_EXTRA_CA_CERTS;

// The test files' own processes (passed on to each by the runner) get the CLI's wasm tiering budget
// (src/cli/wasm-tiering.ts, read from the build just made): many use undici in process, and without
// it V8 compiles undici's HTTP parser with its optimizing compiler in each (~140 ms of CPU per file).
const { wasmTieringBudgetFlag } = await import('../dist/cli/wasm-tiering.js');
const budget = wasmTieringBudgetFlag();
const TEST_FLAGS = budget === undefined ? [] : [budget];

const named = process.argv
  .slice(2)
  .map((file) => file.replace(/^(\.\/)?test\//, '.test-build/').replace(/\.ts$/, '.js'));
const files =
  named.length > 0
    ? named
    : readdirSync('.test-build', { recursive: true })
        .filter((file) => file.endsWith('.test.js') && !file.startsWith('chunks'))
        .sort((a, b) => startOrder(a) - startOrder(b) || a.localeCompare(b))
        .map((file) => join('.test-build', file));

// The type-check's output is held until the tests end, so that it is not lost among theirs.
// Incremental, its state under node_modules/.cache (gone with every npm ci): a first run checks
// everything (~13 s of CPU), a later one only what changed (~4 s), as .ci/run's second and third Node.
const typecheck = node(
  [
    join('node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.json',
    '--noEmit',
    '--incremental',
    '--tsBuildInfoFile',
    join('node_modules', '.cache', 'ledgerhook', 'typecheck.tsbuildinfo'),
  ],
  { quiet: true },
);
const tests = await node([...TEST_FLAGS, '--test', '--test-concurrency=4', ...files], { env: testEnv });
const types = await typecheck;
if (types.code !== 0) process.stderr.write(`\ntype-check failed:\n${types.output}`);
process.exit(tests.code !== 0 ? tests.code : types.code);
