/**
 * Type test: fixtures/receiver-types.ts must compile with the project's strict options, and
 * each wrong variant (a misspelt event or entity name, a wrong narrowing) must not.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './repo-root.js';

const ROOT = repoRoot(import.meta.url);
const FIXTURE = join(ROOT, 'packages', 'webhooks', 'test', 'fixtures', 'receiver-types.ts');
const TSCONFIG = join(ROOT, 'tsconfig.json');
const SOURCE = readFileSync(FIXTURE, 'utf8');

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(TSCONFIG, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true };
}

const options = compilerOptions();

/**
 * Diagnostics of each of `sources` (file name -> text, beside the fixture so that its imports
 * resolve), all checked by one program in memory (`tsc --noEmit`): one type checker for the fixture
 * and its wrong variants rather than one per variant, which is most of this test's CPU. Only these
 * files' own diagnostics (with the options' and global ones): nothing imports them, so the other files'
 * diagnostics cannot change, and npm test's type-check already proves those empty.
 */
function diagnostics(sources: Map<string, string>): Map<string, string[]> {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  host.getSourceFile = (fileName, version, onError, shouldCreate) => {
    const source = sources.get(fileName);
    return source !== undefined
      ? ts.createSourceFile(fileName, source, version)
      : getSourceFile(fileName, version, onError, shouldCreate);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const text = (d: ts.Diagnostic) =>
    `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  return new Map(
    [...sources.keys()].map((fileName) => {
      const file = program.getSourceFile(fileName);
      return [fileName, ts.getPreEmitDiagnostics(program, file).map(text)];
    }),
  );
}

/** The fixture with the line after `// SLOT:<name>` passed through `change`. */
function variant(slot: string, change: (line: string) => string): string {
  const lines = SOURCE.split('\n');
  const index = lines.findIndex((line) => line.trim() === `// SLOT:${slot}`);
  const target = lines[index + 1];
  assert.ok(index >= 0 && target !== undefined, `no SLOT:${slot} in the fixture`);
  const changed = change(target);
  assert.notEqual(changed, target, `the ${slot} variant changes nothing`);
  lines[index + 1] = changed;
  return lines.join('\n');
}

const WRONG: Array<{ slot: string; change: (line: string) => string; expect: RegExp }> = [
  {
    slot: 'event-name',
    change: (line) => line.replace("'INVOICE_VIEWED'", "'INVOICE_VIEWD'"),
    expect: /"INVOICE_VIEWD"/,
  },
  {
    slot: 'entity-name',
    change: (line) => line.replace("'bankTransfer'", "'bankTransfers'"),
    expect: /bankTransfers/,
  },
  { slot: 'narrowing', change: (line) => line.replace(': string', ': number'), expect: /string' is not assignable/ },
];
const variantFile = (slot: string) => FIXTURE.replace(/\.ts$/, `.wrong-${slot}.ts`);
let checked: Map<string, string[]> | undefined;
/** The fixture and every wrong variant, checked together the first time a test asks. */
const found = (fileName: string): string[] => {
  checked ??= diagnostics(
    new Map([
      [FIXTURE, SOURCE],
      ...WRONG.map(({ slot, change }) => [variantFile(slot), variant(slot, change)] as const),
    ]),
  );
  return checked.get(fileName) ?? [];
};

describe('receiver types (tsc on fixtures/receiver-types.ts)', () => {
  it('compiles as written, with the narrowing the fixture asserts', () => {
    assert.deepEqual(found(FIXTURE), []);
  });

  for (const { slot, expect } of WRONG) {
    it(`does not compile with a wrong ${slot}`, () => {
      const errors = found(variantFile(slot));
      assert.ok(errors.length > 0, `the ${slot} variant compiled`);
      assert.ok(
        errors.every((d) => d.startsWith(variantFile(slot))),
        errors.join('\n'),
      );
      assert.match(errors.join('\n'), expect);
    });
  }
});
