/**
 * An esbuild plugin (public plugin API and metafile only) that puts the modules every start loads
 * into one chunk. esbuild's splitting gives each distinct set of entry points that reach a module
 * its own chunk: main.ts and each lazily imported command share modules in many combinations, so a
 * start resolved, read, compiled and linked ~40 small ES modules, which costs more than their code.
 * Every module reached by static imports from START_ROOTS is imported by a virtual module, and that
 * virtual module is imported at the top of main.ts and of every lazily imported module: all of them
 * are then reached by the same entry points and land in one chunk, each module still once. For a
 * lazily imported module the import costs nothing (main has loaded them). `verify` is a root too: it
 * is the command people run most often from scripts, and its own code is small.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

const START_ROOTS = ['src/cli/main.ts', 'src/cli/commands/verify/verify.ts'];
const VIRTUAL = 'ledgerhook-start-chunk';

/** From a first build's metafile: the start modules, and the files imported lazily (absolute paths). */
function startGraph(metafile) {
  const reached = new Set();
  const visit = (file) => {
    if (reached.has(file) || !metafile.inputs[file]) return;
    reached.add(file);
    for (const { path, kind } of metafile.inputs[file].imports)
      if (kind === 'import-statement' || kind === 'require-call') visit(path);
  };
  for (const root of START_ROOTS) visit(root);
  const lazy = new Set();
  // ES modules only: an import put atop a CommonJS file would change its format.
  for (const input of Object.values(metafile.inputs))
    for (const { path, kind, external } of input.imports)
      if (kind === 'dynamic-import' && !external && metafile.inputs[path]?.format === 'esm') lazy.add(resolve(path));
  // main.ts awaits the command it runs at its top level: a chunk that imported it back would wait for itself.
  // Only this package's own sources: @ledgerhook/webhooks declares no side effects, so esbuild drops a
  // bare import of its files (they go where the modules that use them go).
  const modules = [...reached].filter((file) => file.startsWith('src/') && file !== START_ROOTS[0]);
  return { modules: modules.map((file) => resolve(file)), importers: new Set([resolve(START_ROOTS[0]), ...lazy]) };
}

/** The plugin for a second build with the same options as `firstBuild`, whose metafile it reads. */
export function startChunkPlugin(firstBuild) {
  const { modules, importers } = startGraph(firstBuild.metafile);
  return {
    name: 'start-chunk',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${VIRTUAL}$`) }, () => ({ path: VIRTUAL, namespace: VIRTUAL }));
      build.onLoad({ filter: /.*/, namespace: VIRTUAL }, () => ({
        contents: modules.map((file) => `import ${JSON.stringify(file)};`).join('\n'),
        loader: 'js',
        resolveDir: process.cwd(),
      }));
      build.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) =>
        importers.has(args.path)
          ? {
              contents: `import '${VIRTUAL}';\n${await readFile(args.path, 'utf8')}`,
              loader: args.path.endsWith('.ts') ? 'ts' : 'js',
            }
          : undefined,
      );
    },
  };
}
