/**
 * Bundles the CLI entry with the small libraries every command needs (commander, chalk, jose)
 * into dist/cli-bundle, keeping each command in its own lazily loaded chunk. One file instead of
 * ~80 cuts ~40 ms of module resolution from every start (`npm run bench` shows the figures).
 * The heavy dependencies (undici, conf, ora) stay external: only the commands that use them load them.
 */
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

// Chunk names carry content hashes: clear the old ones so that stale chunks never ship.
await rm('dist/cli-bundle', { recursive: true, force: true });

await build({
  entryPoints: ['dist/cli/main.js'],
  outdir: 'dist/cli-bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['undici', 'conf', 'ora'],
  // commander is CommonJS; inside an ES module bundle its require() calls need a real require.
  banner: { js: "import { createRequire as __ledgerhookCreateRequire } from 'node:module'; const require = __ledgerhookCreateRequire(import.meta.url);" },
  minify: true,
  logLevel: 'warning',
  plugins: [{
    // commander requires node:child_process up front but uses it only for external subcommands,
    // which ledgerhook has none of; loading it on first use saves every start ~3 ms.
    name: 'lazy-child-process',
    setup(build) {
      build.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (args.importer.includes('commander') ? { path: 'lazy-child-process', namespace: 'lazy' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
        contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
        loader: 'js',
      }));
    },
  }],
});
