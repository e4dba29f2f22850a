/**
 * The map is the territory: docs/architecture.md's layer table, read as data, against every import in
 * src/. A library folder imports only from its own row and the rows above it; every folder is on the
 * map; commander (and its typed re-export), chalk and ora are imported only by src/cli/, and the library
 * never imports the CLI.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const CLI_ONLY = new Set(['commander', '@commander-js/extra-typings', 'chalk', 'ora']);
/** The package a bare specifier names: `@scope/name/sub` → @scope/name, `name/sub` → name. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The table's rows, bottom-up: each a set of folder names (`util/` → util, `errors.ts` → errors). */
function layerRows(): string[][] {
  const text = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = text.indexOf('Library folders, bottom-up');
  const table = text.slice(start, text.indexOf('\n## ', start));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const first = line.split('|')[1] ?? '';
      return [...first.matchAll(/`([\w-]+)(?:\/|\.ts)`/g)].map((match) => match[1] ?? '');
    });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder of a src path (`store/file/data-file.ts` → store; `errors.ts` → errors). */
const folderOf = (path: string) => {
  const [first = '', ...rest] = relative(SRC, path).split('/');
  return rest.length === 0 ? first.replace(/\.[jt]s$/, '') : first;
};

interface Import {
  file: string;
  specifier: string;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) found.push({ file, specifier: match[1] ?? match[2] ?? '' });
  return found;
}

describe('the layer table is true (docs/architecture.md)', () => {
  const rows = layerRows();
  const rank = new Map<string, number>();
  rows.forEach((row, index) => {
    for (const folder of row) rank.set(folder, index);
  });
  const files = sourceFiles(SRC);
  const library = files.filter((file) => !['cli', 'api', 'index'].includes(folderOf(file)));

  it('names every library folder of src/', () => {
    assert.ok(rows.length >= 10, `the table was not found: ${JSON.stringify(rows)}`);
    const missing = [...new Set(library.map(folderOf))].filter((folder) => !rank.has(folder)).sort();
    assert.deepEqual(missing, [], 'folders missing from the layer table');
  });

  it('no library import runs up the table', () => {
    const upward: string[] = [];
    for (const { file, specifier } of library.flatMap(importsOf)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      if (to === 'cli' || to === 'api' || to === 'index') {
        upward.push(
          `${relative(SRC, file)} → ${relative(SRC, target)} (the library never imports the CLI or the entry points)`,
        );
        continue;
      }
      if ((rank.get(to) ?? Number.POSITIVE_INFINITY) > (rank.get(from) ?? -1))
        upward.push(`${relative(SRC, file)} → ${relative(SRC, target)} (${from} is above ${to} in the table)`);
    }
    assert.deepEqual(upward, []);
  });

  it('commander, @commander-js/extra-typings, chalk and ora are imported only by src/cli/', () => {
    const leaks = library
      .flatMap(importsOf)
      .filter(({ specifier }) => CLI_ONLY.has(packageOf(specifier)))
      .map(({ file, specifier }) => `${relative(SRC, file)} imports ${specifier}`);
    assert.deepEqual(leaks, []);
  });

  it('catches an upward edge (the check itself is not vacuous)', () => {
    // sync is above store: store importing sync would run up the table.
    assert.ok((rank.get('store') ?? 99) < (rank.get('sync') ?? -1));
    assert.ok((rank.get('defaults') ?? 99) < (rank.get('settings') ?? -1));
    assert.equal(packageOf('@commander-js/extra-typings/esm.mjs'), '@commander-js/extra-typings');
    const edges = library.flatMap(importsOf).filter(({ specifier }) => specifier.startsWith('.'));
    assert.ok(edges.length > 300, `only ${edges.length} relative imports were read`);
  });
});

describe('@ledgerhook/webhooks stands alone (packages/webhooks)', () => {
  const PACKAGE_SRC = join(ROOT, 'packages', 'webhooks', 'src');
  const files = sourceFiles(PACKAGE_SRC);

  it('imports only its own files, Node built-ins and jose: never the CLI package', () => {
    const outside = files.flatMap(importsOf).flatMap(({ file, specifier }) => {
      const where = relative(ROOT, file);
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        return target.startsWith(PACKAGE_SRC) ? [] : [`${where} → ${relative(ROOT, target)}`];
      }
      return specifier.startsWith('node:') || packageOf(specifier) === 'jose' ? [] : [`${where} imports ${specifier}`];
    });
    assert.ok(files.length > 20, `only ${files.length} files were read`);
    assert.deepEqual(outside, []);
  });

  it('depends on jose alone', () => {
    const json = JSON.parse(readFileSync(join(ROOT, 'packages', 'webhooks', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    assert.deepEqual(Object.keys({ ...json.dependencies, ...json.peerDependencies }), ['jose']);
  });
});
