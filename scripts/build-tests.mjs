/**
 * Compiles every test file, with the sources it imports, into one plain ES module each under
 * .test-build/<folder>/, so that `npm test` runs JavaScript instead of registering tsx in each of
 * the ~110 test processes (about 0.25 s of CPU per process on 2 cores, plus transforming every
 * imported file again in each). The type-check still covers the TypeScript (npm run typecheck).
 *
 * The output keeps each file's depth (test/cli/x.test.ts -> .test-build/cli/x.test.js; shared chunks
 * in .test-build/chunks/), so a URL built from import.meta.url, such as '../../bin/ledgerhook.js',
 * names the same file from both.
 * `node --import tsx --test test/cli/x.test.ts` still runs one file straight from source.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const OUT = '.test-build';
/** Output name (its folder under .test-build) → source: test/<folder>/x.test.ts, and the webhooks package's own tests as webhooks/. */
const entryPoints = {};
const folders = (await readdir('test', { withFileTypes: true })).filter((entry) => entry.isDirectory());
for (const folder of folders) {
  for (const name of await readdir(join('test', folder.name))) {
    if (name.endsWith('.test.ts')) entryPoints[join(folder.name, name.slice(0, -3))] = join('test', folder.name, name);
  }
}
for (const name of await readdir(join('packages', 'webhooks', 'test'))) {
  if (name.endsWith('.test.ts'))
    entryPoints[join('webhooks', name.slice(0, -3))] = join('packages', 'webhooks', 'test', name);
}
const packageJson = JSON.parse(await readFile('package.json', 'utf8'));

// Dependencies load from node_modules as they do for users; only the project's own files are bundled,
// @ledgerhook/webhooks among them (from its source), so that a test and the code it tests share one copy.
const COMMON = {
  bundle: true,
  conditions: ['ledgerhook-source'],
  external: Object.keys({
    ...packageJson.dependencies,
    ...packageJson.devDependencies,
    ...packageJson.peerDependencies,
  })
    .filter((name) => name !== '@ledgerhook/webhooks')
    .flatMap((name) => [name, `${name}/*`]),
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
};

await rm(OUT, { recursive: true, force: true });
await build({
  ...COMMON,
  entryPoints,
  outdir: OUT,
  // Code splitting keeps the commands' lazy imports lazy: without it every bundle that imports the
  // in-process runner loads pg, bullmq and ioredis up front (~0.45 s of CPU per test file).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

// The TypeScript files tests START as processes (a README snippet, the example consumer app, a child
// that writes state), compiled to .test-build/runnable/<their path>.js: `node file.js` instead of
// `node --import tsx file.ts`, so that no process registers tsx (test/helpers/runnable.ts picks it).
// The same transform tsx applies (types stripped), bundled with the project's own imports.
export const RUNNABLE = [
  'test/helpers/state-writer-child.ts',
  'test/helpers/state-thief-child.ts',
  'test/receiver/snippets/express.ts',
  'test/receiver/snippets/node-http.ts',
  'test/receiver/snippets/hono.ts',
  'test/receiver/snippets/fastify.ts',
  'examples/consumer-app/app.ts',
];
await build({ ...COMMON, entryPoints: RUNNABLE, outbase: '.', outdir: join(OUT, 'runnable') });
