/**
 * Type test: test/types/receiver-types.ts must compile with the project's strict options, and
 * each wrong variant (a misspelt event or entity name, a wrong narrowing) must not.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const FIXTURE = fileURLToPath(new URL('../../test/types/receiver-types.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const SOURCE = readFileSync(FIXTURE, 'utf8');

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(TSCONFIG, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(
    config.config,
    ts.sys,
    fileURLToPath(new URL('../../', import.meta.url)),
  );
  return { ...parsed.options, noEmit: true };
}

const options = compilerOptions();
let previous: ts.Program | undefined;

/**
 * The fixture's diagnostics with `source` in place of the file on disk (`tsc --noEmit`, in memory).
 * `onlyFixture` checks the fixture file alone (plus options and global diagnostics): a variant
 * changes only that file and nothing imports it, so the other files' diagnostics, proven empty by
 * the first test, cannot change; checking them again per variant only costs CPU.
 */
function diagnostics(source: string, onlyFixture = false): string[] {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, shouldCreate) =>
    fileName === FIXTURE
      ? ts.createSourceFile(fileName, source, version)
      : getSourceFile(fileName, version, onError, shouldCreate);
  const program = ts.createProgram([FIXTURE], options, host, previous);
  previous = program;
  return ts
    .getPreEmitDiagnostics(program, onlyFixture ? program.getSourceFile(FIXTURE) : undefined)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
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

describe('receiver types (tsc on test/types/receiver-types.ts)', () => {
  it('compiles as written, with the narrowing the fixture asserts', () => {
    assert.deepEqual(diagnostics(SOURCE), []);
  });

  const wrong: Array<{ slot: string; change: (line: string) => string; expect: RegExp }> = [
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
  for (const { slot, change, expect } of wrong) {
    it(`does not compile with a wrong ${slot}`, () => {
      const found = diagnostics(variant(slot, change), true);
      assert.ok(found.length > 0, `the ${slot} variant compiled`);
      assert.ok(
        found.every((d) => d.startsWith(FIXTURE)),
        found.join('\n'),
      );
      assert.match(found.join('\n'), expect);
    });
  }
});
