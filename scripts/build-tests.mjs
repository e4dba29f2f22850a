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
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const OUT = '.test-build';
const folders = (await readdir('test', { withFileTypes: true })).filter((entry) => entry.isDirectory());
const entryPoints = [];
for (const folder of folders) {
  for (const name of await readdir(join('test', folder.name))) {
    if (name.endsWith('.test.ts')) entryPoints.push(join('test', folder.name, name));
  }
}

// Dependencies load from node_modules as they do for users; only the project's own files are bundled.
const COMMON = {
  bundle: true,
  packages: 'external',
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
  outbase: 'test',
  outdir: OUT,
  // Code splitting keeps the commands' lazy imports lazy: without it every bundle that imports the
  // in-process runner loads pg, bullmq and ioredis up front (~0.45 s of CPU per test file).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

// The TypeScript files tests START as processes (a README snippet, the example consumer app, a child
// that writes state), compiled to .test-build/runnable/<their path>.js: `node file.js` instead of
// `node --import tsx file.ts` saves ~0.55 s of CPU per process (test/helpers/runnable.ts picks it).
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
