/**
 * Bundles the CLI entry with the small libraries every command needs (commander and its typed
 * re-export @commander-js/extra-typings, chalk, jose)
 * into dist/cli-bundle, keeping each command in its own lazily loaded chunk. One file instead of
 * ~80 cuts ~40 ms of module resolution from every start (`npm run bench` shows the figures).
 * The other dependencies stay external: only the commands that use them load them.
 */
import { rm } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const BUNDLED = new Set(['commander', '@commander-js/extra-typings', 'chalk', 'jose', 'proper-lockfile']);
const UNDICI_LITE = new URL('./undici-lite.mjs', import.meta.url);

export async function bundleCli() {
  const packageJson = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  // Chunk names carry content hashes: clear the old ones so that stale chunks never ship.
  await rm('dist/cli-bundle', { recursive: true, force: true });
  await rm('dist/inspector-page', { recursive: true, force: true });

  await build({
    entryPoints: ['src/cli/main.ts'],
    outdir: 'dist/cli-bundle',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Every runtime dependency stays external except the small ones every command needs: the heavy ones
    // load only in the commands that use them, and some (bullmq's Lua scripts) read files beside their own code.
    // The optional peers (pg, bullmq, ioredis, rate-limiter-flexible) are external too: never bundled, loaded on use.
    external: Object.keys({ ...packageJson.dependencies, ...packageJson.peerDependencies }).filter(
      (name) => !BUNDLED.has(name) && name !== 'undici',
    ),
    // commander is CommonJS; inside an ES module bundle its require() calls need a real require. Node
    // builtins come from process.getBuiltinModule (Node >= 20.16), which, unlike `import 'node:module'`,
    // loads nothing; anything else from a real require made on first use.
    banner: {
      js: "const require = (id) => process.getBuiltinModule(id) ?? process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);",
    },
    // LEDGERHOOK_BUNDLE_READABLE=1 keeps names and lines, for a --cpu-prof that says which function is hot.
    minify: process.env.LEDGERHOOK_BUNDLE_READABLE !== '1',
    logLevel: 'warning',
    plugins: [
      {
        // undici as the two names the CLI uses (scripts/undici-lite.mjs), bundled into the network
        // commands' chunks: one file instead of undici's ~110, none of fetch/WebSocket/cookies.
        name: 'undici-lite',
        setup(build) {
          build.onResolve({ filter: /^undici$/ }, () => ({ path: fileURLToPath(UNDICI_LITE) }));
        },
      },
      {
        // An ES module import of a builtin ('node:fs') makes its namespace, reading every export: the
        // lazy ones too, so `import { readFileSync } from 'node:fs'` also loads fs/promises, readline
        // and the streams (measured with process.moduleLoadList: ~40 internal modules that `node -e 0`
        // never compiles, ~10 ms of every start). Here each builtin is a CommonJS require instead,
        // whose exports are read only when used. commander requires node:child_process up front but
        // uses it only for external subcommands, which ledgerhook has none of: loaded on first use.
        name: 'builtins-on-use',
        setup(build) {
          build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
            if (!isBuiltin(args.path)) return undefined;
            // The shim's own require() is the real one (the banner's); an import() of a builtin, made
            // when needed, stays Node's own (a CommonJS shim would have only a default export there).
            if (args.namespace === 'builtin' || args.kind === 'dynamic-import')
              return { path: args.path, external: true };
            const name = args.path.replace(/^node:/, '');
            // Only commander's child_process is the lazy stand-in: our own code imports names from it.
            const lazy = name === 'child_process' && args.importer.includes('commander');
            return { path: lazy ? 'child_process-on-use' : name, namespace: 'builtin' };
          });
          build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
            contents:
              args.path === 'child_process-on-use'
                ? "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });"
                : `module.exports = require(${JSON.stringify(`node:${args.path}`)});`,
            loader: 'js',
          }));
        },
      },
    ],
  });

  // The inspector page (src/inspector/page): one script and one stylesheet, served by ledgerhook
  // itself (no CDN, works offline). Kept well under 100 kB; the build fails if it grows past that.
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
  const pageBytes = Object.values(page.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  if (pageBytes > 100 * 1024) throw new Error(`the inspector page is ${pageBytes} bytes; the budget is 100 kB`);
}
