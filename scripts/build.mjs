/**
 * The build, all JavaScript from esbuild (a second or two), types from tsc:
 * - dist/ mirrors src/ file for file: the library and its subpath exports;
 * - dist/cli-bundle: the CLI (scripts/bundle-cli.mjs);
 * - dist/inspector-page: the inspector's script and stylesheet (same script);
 * - dist/**\/*.d.ts from `tsc --emitDeclarationOnly`. `--no-types` skips them: `npm test` does, as
 *   its type-check covers every file and nothing it runs reads a declaration.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleCli } from './bundle-cli.mjs';

const withTypes = !process.argv.includes('--no-types');

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

try {
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
    bundleCli(),
    types,
  ]);
} catch (error) {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  tsc?.kill(); // a failed build must not leave tsc writing declarations behind it
  process.exit(1);
}
