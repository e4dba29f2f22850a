/**
 * The build: all JavaScript from esbuild (a second or two), types from tsc.
 * - dist/ mirrors src/ file for file: the library and its subpath exports;
 * - dist/cli-bundle: the CLI, src/cli/main.ts bundled with the dependencies every command loads
 *   (commander, its typed re-export, jose), each lazily imported command in its own chunks; the
 *   other dependencies stay external and load only in the commands that use them;
 * - dist/inspector-page: the inspector's script and stylesheet;
 * - dist/**\/*.d.ts from `tsc --emitDeclarationOnly`. `--no-types` skips them: `npm test` does, as
 *   its type-check covers every file and nothing it runs reads a declaration.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const withTypes = !process.argv.includes('--no-types');
const packageJson = JSON.parse(await readFile('package.json', 'utf8'));
const BUNDLED = new Set(['commander', '@commander-js/extra-typings', 'jose']);

const sources = (await readdir('src', { recursive: true }))
  .filter((file) => file.endsWith('.ts') && !file.startsWith(join('inspector', 'page')))
  .map((file) => join('src', file));

const tsc = withTypes
  ? spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
      stdio: 'inherit',
    })
  : undefined;
const types = new Promise((resolve, reject) => {
  if (!tsc) resolve();
  else tsc.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tsc exited with ${code}`))));
});

/** The inspector page: one script and one stylesheet served by ledgerhook itself (no CDN), under 100 kB. */
async function inspectorPage() {
  const page = await build({
    entryPoints: ['src/inspector/page/app.ts', 'src/inspector/page/app.css'],
    outdir: 'dist/inspector-page',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    metafile: true,
    logLevel: 'warning',
  });
  const bytes = Object.values(page.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  if (bytes > 100 * 1024) throw new Error(`the inspector page is ${bytes} bytes; the budget is 100 kB`);
}

try {
  // Chunk names carry content hashes: clear the old ones so that stale chunks never ship.
  await Promise.all(['dist/cli-bundle', 'dist/inspector-page'].map((dir) => rm(dir, { recursive: true, force: true })));
  await Promise.all([
    build({
      entryPoints: sources,
      outbase: 'src',
      outdir: 'dist',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    }),
    build({
      entryPoints: ['src/cli/main.ts'],
      outdir: 'dist/cli-bundle',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: Object.keys({ ...packageJson.dependencies, ...packageJson.peerDependencies }).filter(
        (name) => !BUNDLED.has(name),
      ),
      // commander is CommonJS: inside an ES module its require() calls need a real require.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      // LEDGERHOOK_BUNDLE_READABLE=1 keeps names and lines, for a --cpu-prof that says which function is hot.
      minify: process.env.LEDGERHOOK_BUNDLE_READABLE !== '1',
      logLevel: 'warning',
    }),
    inspectorPage(),
    types,
  ]);
} catch (error) {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  tsc?.kill(); // a failed build must not leave tsc writing declarations behind it
  process.exit(1);
}
