/**
 * The public surface is what docs/api.md lists: every entry point of every package in this repository
 * (the root package and its workspaces, read from their package.json `exports`), each exported name
 * with its own row. Adding or removing an export without the page changing fails here, and so does a
 * row for a name that is no longer exported.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PackageJson {
  name: string;
  workspaces?: string[];
  exports?: Record<string, string | { 'ledgerhook-source'?: string; types?: string; default?: string }>;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PackageJson;

/** Every package of the repository: the root and its workspaces (plain folder names, no globs needed). */
function packages(): Array<{ dir: string; json: PackageJson }> {
  const root = readJson(join(ROOT, 'package.json'));
  const found = [{ dir: ROOT, json: root }];
  for (const workspace of root.workspaces ?? []) {
    const dir = join(ROOT, workspace);
    if (existsSync(join(dir, 'package.json'))) found.push({ dir, json: readJson(join(dir, 'package.json')) });
  }
  return found;
}

/** The source file behind an entry: its `ledgerhook-source` condition, else its declaration's source (./dist/a.d.ts → src/a.ts). */
function sourceOf(dir: string, entry: string | { 'ledgerhook-source'?: string; types?: string }): string | undefined {
  if (typeof entry === 'string') return undefined;
  if (entry['ledgerhook-source']) return join(dir, entry['ledgerhook-source']);
  if (entry.types === undefined) return undefined;
  return join(dir, entry.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
}

/** Every entry point of the repository's packages, by its import specifier. */
const ENTRIES = new Map(
  packages().flatMap(({ dir, json }) =>
    Object.entries(json.exports ?? {}).flatMap(([subpath, entry]) => {
      const source = sourceOf(dir, entry);
      return source === undefined
        ? []
        : [[subpath === '.' ? json.name : `${json.name}${subpath.slice(1)}`, source] as const];
    }),
  ),
);

/**
 * The names a module exports, read from its `export` statements (the entry files are lists of
 * re-exports and declarations; `export *` is followed). Module specifiers that are not relative are
 * another package's surface and are not followed.
 */
function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const part of (match[1] ?? '').split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.add(name);
    }
  for (const match of text.matchAll(
    /export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/g,
  ))
    names.add(match[1] ?? '');
  // `export *` is followed into a relative module or into another entry of this repository.
  for (const match of text.matchAll(/export\s+\*\s+from\s+['"]([^'"]+)['"]/g)) {
    const specifier = match[1] ?? '';
    const target = specifier.startsWith('.')
      ? resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))
      : ENTRIES.get(specifier);
    assert.ok(target, `${relative(ROOT, file)}: export * from ${specifier}, which is no entry of this repository`);
    for (const name of exportedNames(target, seen)) names.add(name);
  }
  return names;
}

/**
 * docs/api.md: `## \`entry\`` headings, each followed by rows whose first cell is a name in backticks,
 * or by a line "Re-exports `other entry` and `another`." for an entry that is exactly those.
 */
function documentedNames(): Map<string, Set<string>> {
  const text = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const sections = new Map<string, Set<string>>();
  const reexports = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const heading = /^##\s+`([^`]+)`/.exec(line);
    if (heading) {
      current = heading[1] ?? '';
      sections.set(current, new Set());
      continue;
    }
    if (/^##\s/.test(line)) current = undefined;
    if (current === undefined) continue;
    const row = /^\|\s*`([A-Za-z_$][\w$]*)`/.exec(line);
    if (row) sections.get(current)?.add(row[1] ?? '');
    if (line.startsWith('Re-exports '))
      reexports.set(
        current,
        [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
      );
  }
  for (const [entry, others] of reexports)
    for (const other of others) for (const name of sections.get(other) ?? []) sections.get(entry)?.add(name);
  return sections;
}

describe('the public surface is the one docs/api.md lists', () => {
  const documented = documentedNames();
  const entries = [...ENTRIES].map(([entry, source]) => ({ entry, source }));

  it('finds the entry points', () => {
    assert.ok(entries.length >= 2, JSON.stringify(entries));
    for (const { entry, source } of entries) assert.ok(existsSync(source), `${entry}: ${relative(ROOT, source)}`);
  });

  for (const { entry, source } of entries)
    it(`${entry}: every export has a row, every row is an export`, () => {
      const exported = [...exportedNames(source)].sort();
      const listed = [...(documented.get(entry) ?? [])].sort();
      assert.ok(documented.has(entry), `docs/api.md has no section "## \`${entry}\`"`);
      assert.deepEqual(
        {
          missingFromThePage: exported.filter((name) => !listed.includes(name)),
          notExported: listed.filter((name) => !exported.includes(name)),
        },
        { missingFromThePage: [], notExported: [] },
      );
    });
});
