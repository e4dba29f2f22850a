/**
 * Bundles the CLI entry with the small libraries every command needs (commander and its typed
 * re-export @commander-js/extra-typings, chalk, jose)
 * into dist/cli-bundle, keeping each command in its own lazily loaded chunk. One file instead of
 * ~80 cuts ~40 ms of module resolution from every start (`npm run bench` shows the figures); what
 * every start and `verify` load is one chunk besides main.js (startPathOf below); commander is a chunk
 * of its own, loaded only for a command line that is not plain (src/cli/plain-command.ts).
 * The other dependencies stay external: only the commands that use them load them.
 * Also saves `ledgerhook --help` as it prints (help.txt), which bin/ledgerhook.js prints off a terminal,
 * and as it prints at a terminal of any width (help-pages.json: scripts/help-pages.mjs).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { saveHelpPages } from './help-pages.mjs';

const BUNDLED = new Set(['commander', '@commander-js/extra-typings', 'chalk', 'jose', 'proper-lockfile']);
const UNDICI_LITE = new URL('./undici-lite.mjs', import.meta.url);

/** The builtins a bare `node -e 0` of the Node running the build has loaded (one spawn, ~40 ms). */
const LOADED_AT_START = new Set(
  JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(process.moduleLoadList)'], { encoding: 'utf8' }))
    .flatMap((entry) => (entry.startsWith('NativeModule ') ? [entry.slice('NativeModule '.length)] : []))
    .concat('process'), // the global itself
);

/**
 * The modules every start loads, plus the `verify` command's own (issue 23 measures it cold), reached
 * from main.ts by static imports. esbuild's splitting gives each distinct set of entry points (main and
 * every lazily imported command) that reach a module its own chunk: that made ~15 small files for
 * `--help` and ~30 for `verify`, each an ES module to resolve, read, compile and link (~40M instructions
 * of a ~300M `verify` under callgrind). Every module of this set is imported by main.ts and by every
 * lazily imported module too (a virtual module injected at their top): all of them are then reached by
 * the same entry points and land in ONE chunk, each module still once (one LedgerhookError class, one
 * json-output record). For a lazily imported module that import costs nothing: main has loaded them.
 * verify's code in it costs every other start ~8M instructions and spares `verify` ~11M (Node 22):
 * a trade made for the start that issue 23 holds to the floor.
 */
const START_PATH_ROOTS = ['src/cli/main.ts', 'src/cli/commands/verify/verify.ts'];
const START_PATH = 'ledgerhook-start-path';

/** From a metafile: the files under src/ that the roots reach by static imports, and every lazily imported file. */
function startPathOf(metafile) {
  const reached = new Set();
  const lazy = new Set();
  const visit = (file) => {
    if (reached.has(file) || !metafile.inputs[file]) return;
    reached.add(file);
    for (const { path, kind } of metafile.inputs[file].imports)
      if (kind === 'import-statement' || kind === 'require-call') visit(path);
  };
  for (const root of START_PATH_ROOTS) visit(root);
  // An ES module only (chalk, undici-lite and our own are): an import put atop CommonJS would change its format.
  for (const input of Object.values(metafile.inputs))
    for (const { path, kind, external } of input.imports)
      if (kind === 'dynamic-import' && !external && metafile.inputs[path]?.format === 'esm') lazy.add(path);
  // main.ts awaits the command it runs at its top level: a chunk that imported it back would wait for itself.
  const modules = [...reached].filter((file) => file.startsWith('src/') && file !== START_PATH_ROOTS[0]);
  return { modules, lazy };
}

export async function bundleCli() {
  const packageJson = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  // Chunk names carry content hashes: clear the old ones so that stale chunks never ship.
  await rm('dist/cli-bundle', { recursive: true, force: true });
  await rm('dist/inspector-page', { recursive: true, force: true });

  const options = cliBundleOptions(packageJson);
  // A first pass, in memory, only to read the import graph.
  const { metafile } = await build({ ...options, write: false, metafile: true });
  const { modules, lazy } = startPathOf(metafile);
  const injected = new Set([START_PATH_ROOTS[0], ...lazy].map((file) => resolve(file)));
  await build({
    ...options,
    plugins: [
      ...options.plugins,
      {
        name: 'one-start-chunk',
        setup(build) {
          build.onResolve({ filter: new RegExp(`^${START_PATH}$`) }, () => ({
            path: START_PATH,
            namespace: START_PATH,
          }));
          build.onLoad({ filter: /.*/, namespace: START_PATH }, () => ({
            contents: modules.map((file) => `import ${JSON.stringify(resolve(file))};`).join('\n'),
            loader: 'js',
            resolveDir: process.cwd(),
          }));
          build.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) =>
            injected.has(args.path)
              ? {
                  contents: `import '${START_PATH}';\n${await readFile(args.path, 'utf8')}`,
                  loader: args.path.endsWith('.ts') ? 'ts' : 'js',
                }
              : undefined,
          );
        },
      },
    ],
  });

  // `ledgerhook --help` as this program prints it when stdout is no terminal (80 columns, no colour):
  // bin/ledgerhook.js prints this file instead of loading the bundle to build the same text again.
  const help = spawnSync(process.execPath, ['dist/cli-bundle/main.js', '--help'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NO_COLOR: '1' },
  });
  if (help.status !== 0 || help.stderr !== '') throw new Error(`ledgerhook --help failed: ${help.stderr}`);
  await writeFile('dist/cli-bundle/help.txt', help.stdout);
  // And at a terminal, where commander wraps it to the width: each distinct page once (~1 s of rendering).
  saveHelpPages('dist/cli-bundle/main.js', 'dist/cli-bundle/help-pages.json');

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

/** The CLI bundle's esbuild options (both passes). */
function cliBundleOptions(packageJson) {
  return {
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
          // undici's client requires its HTTP/2 half up front, which loads node:http2 (~3 ms of every
          // network command's start). It is used only for a TLS connection that agreed on h2, which
          // undici offers only with allowH2, which ledgerhook never sets (ALPN says http/1.1 alone).
          build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
            /[\\/]undici[\\/]/.test(args.importer) ? { path: 'client-h2', namespace: 'no-h2' } : undefined,
          );
          build.onLoad({ filter: /.*/, namespace: 'no-h2' }, () => ({
            contents: "module.exports = () => { throw new Error('HTTP/2 was not offered (allowH2 is off)'); };",
            loader: 'js',
          }));
        },
      },
      {
        // proper-lockfile requires graceful-fs at its top, for the `fs` it uses when given none;
        // ledgerhook always gives it one (lock-lease.ts: node:fs). graceful-fs, loaded for nothing,
        // cloned fs and loaded the streams (~5 ms of every command that opens a file store). Here it
        // is node:fs itself (the library in dist/ still loads the real one).
        name: 'no-graceful-fs',
        setup(build) {
          // Node's fs object itself, as a library gets it (builtins-on-use below): proper-lockfile's
          // sync API, were it ever called without an fs, spreads it and needs its own properties.
          build.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: 'fs', namespace: 'builtin-lib' }));
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
            if (args.namespace?.startsWith('builtin') || args.kind === 'dynamic-import')
              return { path: args.path, external: true };
            // Our own modules get the stand-in below; a library's (graceful-fs clones and patches fs,
            // proper-lockfile spreads it) gets an object with the builtin's own properties, as Node's is.
            const own = !/[\\/]node_modules[\\/]/.test(args.importer);
            return { path: args.path.replace(/^node:/, ''), namespace: own ? 'builtin' : 'builtin-lib' };
          });
          // A builtin that Node has loaded before any code runs (fs, path, events...) is itself. Any other
          // is an object of getters over its export names (as this Node lists them; the code
          // uses none that Node 20 lacks), requiring the builtin at the first read of one: a module that
          // only might hash (the start path holds verify's code) does not load node:crypto (~56M
          // instructions of a cold start under callgrind), and commander's child_process, used only for
          // external subcommands, which ledgerhook has none of, is never loaded. For our own modules, that
          // object is the prototype of an empty one: esbuild's __toESM, run for each module that imports a
          // builtin, copies its own properties (~100 for fs, each a getter defined; 28 imports in the
          // start chunk: 174M -> 161M instructions for a cold verify); reads find them on the prototype.
          const builtinShim = (args) => {
            const id = JSON.stringify(`node:${args.path}`);
            const real = process.getBuiltinModule(`node:${args.path}`);
            const wrap = (object) => (args.namespace === 'builtin' ? `Object.create(${object})` : object);
            // One that is itself a function (assert, stream) is called or extended: it stays itself.
            if (typeof real === 'function') return { contents: `module.exports = require(${id});`, loader: 'js' };
            if (LOADED_AT_START.has(args.path))
              return { contents: `module.exports = ${wrap(`require(${id})`)};`, loader: 'js' };
            const names = Object.getOwnPropertyNames(real);
            const getters = names.map(
              (name) => `${JSON.stringify(name)}: { enumerable: true, get: () => load()[${JSON.stringify(name)}] }`,
            );
            return {
              contents: `let real; const load = () => (real ??= require(${id}));\nmodule.exports = ${wrap(`Object.defineProperties({}, {\n${getters.join(',\n')}\n})`)};`,
              loader: 'js',
            };
          };
          build.onLoad({ filter: /.*/, namespace: 'builtin' }, builtinShim);
          build.onLoad({ filter: /.*/, namespace: 'builtin-lib' }, builtinShim);
        },
      },
    ],
  };
}
