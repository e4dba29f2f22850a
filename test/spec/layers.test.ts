/**
 * The map is the territory: docs/architecture.md's layer table, read as data, against every import in
 * src/ and packages/webhooks/src/. A folder imports only what its row's "may import" column lists, and
 * uses everything listed there (so the list stays true); the lists have no cycle; every folder has a
 * row and every row's main file exists; src/ reaches @ledgerhook/webhooks only through its entries;
 * commander (and its typed re-export), chalk and ora are imported only by src/cli/, nothing imports the
 * CLI; and the webhooks package imports nothing but its own files, Node built-ins and jose.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const PACKAGE_DIR = join(ROOT, 'packages', 'webhooks');
const PACKAGE_SRC = join(PACKAGE_DIR, 'src');
const PACKAGE = '@ledgerhook/webhooks';
const CLI_ONLY = new Set(['commander', '@commander-js/extra-typings', 'chalk', 'ora']);
/** Folders no other folder may import: the CLI and the entry points sit above the library. */
const TOP = new Set(['cli', 'api', 'index']);
/** In a "may import" column: any library folder. */
const ANY = '*';

/** The package a bare specifier names: `@scope/name/sub` → @scope/name, `name/sub` → name. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** A name as the table writes it, as a unit: `util/` → util, `errors.ts` → errors; others as they are. */
const unitOf = (name: string) => name.replace(/\/$/, '').replace(/\.ts$/, '');

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');

interface Row {
  unit: string;
  main: string[];
  mayImport: Set<string>;
}

/** The layer table's rows: `| folder | what it is for | main file | may import |`. */
function layerRows(text: string): Row[] {
  const start = text.indexOf('\n## Layers');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, folder = '', , main = '', mayImport = ''] = line.split('|');
      return {
        unit: unitOf(backticked(folder)[0] ?? ''),
        main: backticked(main),
        mayImport: new Set(backticked(mayImport).map(unitOf)),
      };
    });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The unit of a src path: its top folder (`store/file/data-file.ts` → store), or a top file (`errors.ts` → errors). */
const folderOf = (path: string) => {
  const [first = '', ...rest] = relative(SRC, path).split(sep);
  return rest.length === 0 ? first.replace(/\.[jt]s$/, '') : first;
};

const inside = (dir: string, path: string) => path === dir || path.startsWith(dir + sep);

interface Import {
  file: string;
  specifier: string;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  // A text that only looks like an import (in a comment or a string) gives a specifier with blanks.
  return [...text.matchAll(pattern)]
    .map((match) => ({ file, specifier: match[1] ?? match[2] ?? '' }))
    .filter(({ specifier }) => specifier !== '' && !/\s/.test(specifier));
}

/** The entries of @ledgerhook/webhooks, as `src/` may import them: `@ledgerhook/webhooks`, `…/node`, `…/advanced`. */
function packageEntries(): Set<string> {
  const json = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return new Set(
    Object.keys(json.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => (subpath === '.' ? PACKAGE : `${PACKAGE}${subpath.slice(1)}`)),
  );
}

/** One folder → folder (or → the package) edge, with the import that makes it. */
interface Edge {
  from: string;
  to: string;
  where: string;
}

/** Every edge between units of src/, plus what no table may allow: paths out of src/, the package's files, the CLI's packages. */
function edgesOf(imports: Import[], entries: Set<string>): { edges: Edge[]; refused: string[] } {
  const edges: Edge[] = [];
  const refused: string[] = [];
  for (const { file, specifier } of imports) {
    const where = `${relative(SRC, file)} → ${specifier}`;
    const from = folderOf(file);
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(file), specifier);
      if (!inside(SRC, target)) refused.push(`${where} (a path out of src/: use a package entry)`);
      else if (folderOf(target) !== from) edges.push({ from, to: folderOf(target), where });
    } else if (packageOf(specifier) === PACKAGE) {
      if (entries.has(specifier)) edges.push({ from, to: PACKAGE, where });
      else refused.push(`${where} (not an entry of ${PACKAGE}: ${[...entries].join(', ')})`);
    } else if (CLI_ONLY.has(packageOf(specifier)) && from !== 'cli') {
      refused.push(`${where} (only src/cli/ imports ${packageOf(specifier)})`);
    }
  }
  return { edges, refused };
}

/** What the table does not allow, and what it lists that is no longer used. */
function violations(rows: Row[], edges: Edge[]): { outside: string[]; unused: string[] } {
  const allowed = new Map(rows.map((row) => [row.unit, row.mayImport]));
  const used = new Map<string, Set<string>>();
  const outside: string[] = [];
  for (const { from, to, where } of edges) {
    used.set(from, (used.get(from) ?? new Set()).add(to));
    const list = allowed.get(from) ?? new Set();
    if (TOP.has(to)) outside.push(`${where} (nothing imports ${to}/)`);
    else if (!list.has(to) && !(list.has(ANY) && to !== PACKAGE))
      outside.push(`${where} (${to} is not in ${from}'s "may import")`);
  }
  const unused = rows
    .filter((row) => row.unit !== PACKAGE)
    .flatMap((row) =>
      [...row.mayImport]
        .filter((name) => name !== ANY && !used.get(row.unit)?.has(name))
        .map((name) => `${row.unit} lists ${name} but imports nothing of it`),
    );
  return { outside, unused };
}

/** A cycle among the "may import" lists, as a path (a → b → a), or undefined. */
function cycleIn(rows: Row[]): string | undefined {
  const next = new Map(rows.map((row) => [row.unit, [...row.mayImport]]));
  const state = new Map<string, 'open' | 'done'>();
  const visit = (unit: string, path: string[]): string | undefined => {
    if (state.get(unit) === 'open') return [...path.slice(path.indexOf(unit)), unit].join(' → ');
    if (state.get(unit) === 'done') return undefined;
    state.set(unit, 'open');
    for (const to of next.get(unit) ?? []) {
      const found = visit(to, [...path, unit]);
      if (found) return found;
    }
    state.set(unit, 'done');
    return undefined;
  };
  for (const unit of next.keys()) {
    const found = visit(unit, []);
    if (found) return found;
  }
  return undefined;
}

describe('the layer table is true (docs/architecture.md)', () => {
  const rows = layerRows(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
  const files = sourceFiles(SRC);
  const units = new Set(files.map(folderOf));
  const entries = packageEntries();
  const { edges, refused } = edgesOf(files.flatMap(importsOf), entries);

  it('has one row per folder of src/, each with a main file that exists', () => {
    assert.ok(rows.length >= 20, `the table was not found: ${JSON.stringify(rows.map((row) => row.unit))}`);
    const named = new Set(rows.map((row) => row.unit));
    assert.equal(named.size, rows.length, 'a folder has two rows');
    assert.deepEqual([...units].filter((unit) => !named.has(unit)).sort(), [], 'folders missing from the table');
    const stale = rows.filter((row) => row.unit !== PACKAGE && !units.has(row.unit)).map((row) => row.unit);
    assert.deepEqual(stale, [], 'rows for folders that do not exist');
    // A folder's main file is in it; a top file (`errors.ts`) is its own.
    const dirOf = (unit: string) =>
      unit === PACKAGE ? PACKAGE_SRC : existsSync(join(SRC, unit)) ? join(SRC, unit) : SRC;
    const missing = rows.flatMap((row) =>
      row.main.map((main) => join(dirOf(row.unit), main)).filter((path) => !existsSync(path)),
    );
    assert.deepEqual(missing, [], 'main files that do not exist');
  });

  it('every import between folders is in its row, and every listed folder is imported', () => {
    assert.ok(edges.length > 300, `only ${edges.length} imports between folders were read`);
    // outside: add the folder to the row (if the edge is wanted); unused: drop it from the row.
    assert.deepEqual(violations(rows, edges), { outside: [], unused: [] });
  });

  it('the "may import" lists name only folders of the table, and have no cycle', () => {
    const named = new Set([...rows.map((row) => row.unit), ANY, 'jose']);
    const unknown = rows.flatMap((row) =>
      [...row.mayImport].filter((name) => !named.has(name)).map((name) => `${row.unit}: ${name}`),
    );
    assert.deepEqual(unknown, []);
    assert.equal(cycleIn(rows), undefined);
  });

  it('src/ reaches @ledgerhook/webhooks only through its entries; commander, chalk and ora only from src/cli/', () => {
    assert.deepEqual([...entries].sort(), [PACKAGE, `${PACKAGE}/advanced`, `${PACKAGE}/node`]);
    assert.deepEqual(refused, []);
  });

  it('catches a planted import outside a row, a listed folder gone unused, a cycle and a way around the package entries', () => {
    const store = join(SRC, 'store', 'file', 'planted.ts');
    const planted = edgesOf(
      [
        { file: store, specifier: '../../sync/sync-dataset.js' },
        { file: store, specifier: '../../cli/main.js' },
        { file: store, specifier: '../../../packages/webhooks/src/webhook/verify.js' },
        { file: store, specifier: '@ledgerhook/webhooks/src/index.js' },
        { file: store, specifier: 'chalk' },
      ],
      entries,
    );
    assert.equal(planted.refused.length, 3, planted.refused.join('\n'));
    const { outside } = violations(rows, planted.edges);
    assert.deepEqual(
      outside.map((line) => line.replace(/ \(.*/, '')),
      ['store/file/planted.ts → ../../sync/sync-dataset.js', 'store/file/planted.ts → ../../cli/main.js'],
    );
    const { unused } = violations(
      rows,
      edges.filter((edge) => !(edge.from === 'demo' && edge.to === 'mock')),
    );
    assert.ok(unused.includes('demo lists mock but imports nothing of it'), unused.join('\n'));
    const cyclic = rows.map((row) =>
      row.unit === 'store' ? { ...row, mayImport: new Set([...row.mayImport, 'sync']) } : row,
    );
    assert.match(cycleIn(cyclic) ?? '', /store → sync → store|sync → store → sync/);
  });
});

describe('@ledgerhook/webhooks stands alone (packages/webhooks)', () => {
  const files = sourceFiles(PACKAGE_SRC);

  it('imports only its own files, Node built-ins and jose: never the CLI package', () => {
    const outside = files.flatMap(importsOf).flatMap(({ file, specifier }) => {
      const where = relative(ROOT, file);
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        return inside(PACKAGE_SRC, target) ? [] : [`${where} → ${relative(ROOT, target)}`];
      }
      return specifier.startsWith('node:') || packageOf(specifier) === 'jose' ? [] : [`${where} imports ${specifier}`];
    });
    assert.ok(files.length > 20, `only ${files.length} files were read`);
    assert.deepEqual(outside, []);
  });

  it('its row in the table lists what it imports: jose', () => {
    const row = layerRows(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')).find((r) => r.unit === PACKAGE);
    const imported = new Set(
      files
        .flatMap(importsOf)
        .map(({ specifier }) => specifier)
        .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
        .map(packageOf),
    );
    assert.deepEqual([...(row?.mayImport ?? [])].sort(), [...imported].sort());
  });

  it('depends on jose alone', () => {
    const json = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    assert.deepEqual(Object.keys({ ...json.dependencies, ...json.peerDependencies }), ['jose']);
  });
});
