/**
 * The build, for both packages of the workspace: all JavaScript from esbuild (a second or two), types
 * from tsc.
 * - packages/webhooks/dist mirrors packages/webhooks/src file for file (@ledgerhook/webhooks);
 * - dist/ mirrors src/ file for file: the ledgerhook library and its subpath exports;
 * - dist/cli-bundle: the CLI, src/cli/main.ts bundled with what every command loads (commander, its
 *   typed re-export, jose, @ledgerhook/webhooks from its source), what every start loads in one chunk
 *   (start-chunk.mjs), each lazily imported command in its own chunks; the other dependencies stay
 *   external and load only in the commands that use them;
 * - dist/inspector-page: the inspector's script and stylesheet;
 * - *.d.ts from `tsc --emitDeclarationOnly`, the webhooks package's first (the CLI's read them).
 *   `--no-types` skips them: `npm test` does, as its type-check covers every file and nothing it
 *   runs reads a declaration.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startChunkPlugin } from './start-chunk.mjs';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const withTypes = !process.argv.includes('--no-types');
const packageJson = JSON.parse(await readFile('package.json', 'utf8'));
const BUNDLED = new Set(['commander', '@commander-js/extra-typings', 'jose', '@ledgerhook/webhooks']);
/** The export condition under which the workspace's packages name their TypeScript sources. */
const SOURCE = 'ledgerhook-source';

const typeScriptIn = async (dir, skip = () => false) =>
  (await readdir(dir, { recursive: true }))
    .filter((file) => file.endsWith('.ts') && !skip(file))
    .map((file) => join(dir, file));

/** One package's JavaScript, file for file, as its package.json `exports` name it. */
async function mirror(dir, skip) {
  await build({
    entryPoints: await typeScriptIn(join(dir, 'src'), skip),
    outbase: join(dir, 'src'),
    outdir: join(dir, 'dist'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
}

const children = new Set();
function tsc(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, '--emitDeclarationOnly'], {
      stdio: 'inherit',
    });
    children.add(child);
    child.on('close', (code) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`tsc -p ${project} exited with ${code}`));
    });
  });
}

/** The inspector page: one script and one stylesheet served by ledgerhook itself (no CDN), under 100 kB. */
async function inspectorPage() {
  const page = await build({
    entryPoints: ['src/inspector/page/app.ts', 'src/inspector/page/app.css'],
    outdir: 'dist/inspector-page',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The page shares the edit checks with the server, and through them @ledgerhook/webhooks' body
    // parser: its Node-only modules are never reached, and the build fails if one is (below).
    conditions: [SOURCE],
    external: ['node:*'],
    minify: true,
    metafile: true,
    logLevel: 'warning',
  });
  const node = Object.values(page.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external));
  if (node.length > 0) throw new Error(`the inspector page would import ${node.map((i) => i.path).join(', ')}`);
  const bytes = Object.values(page.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  if (bytes > 100 * 1024) throw new Error(`the inspector page is ${bytes} bytes; the budget is 100 kB`);
}

async function cliBundle() {
  const options = {
    entryPoints: ['src/cli/main.ts'],
    outdir: 'dist/cli-bundle',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: [SOURCE],
    external: Object.keys({ ...packageJson.dependencies, ...packageJson.peerDependencies }).filter(
      (name) => !BUNDLED.has(name),
    ),
    // commander is CommonJS: inside an ES module its require() calls need a real require.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    // LEDGERHOOK_BUNDLE_READABLE=1 keeps names and lines, for a --cpu-prof that says which function is hot.
    minify: process.env.LEDGERHOOK_BUNDLE_READABLE !== '1',
    logLevel: 'warning',
  };
  // A first pass in memory reads the import graph; the second writes the bundle with the start in one chunk.
  const first = await build({ ...options, write: false, metafile: true });
  await build({ ...options, plugins: [startChunkPlugin(first)] });
}

try {
  // Chunk names carry content hashes: clear the old ones so that stale chunks never ship.
  await Promise.all(['dist/cli-bundle', 'dist/inspector-page'].map((dir) => rm(dir, { recursive: true, force: true })));
  const typing = withTypes
    ? tsc('packages/webhooks/tsconfig.build.json').then(() => tsc('tsconfig.build.json'))
    : Promise.resolve();
  await Promise.all([
    mirror('packages/webhooks'),
    mirror('.', (file) => file.startsWith(join('inspector', 'page'))),
    cliBundle(),
    inspectorPage(),
    typing,
  ]);
} catch (error) {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  for (const child of children) child.kill(); // a failed build must not leave tsc writing declarations behind it
  process.exit(1);
}
