/**
 * A service on a Web runtime (Workers, Deno, an edge function) type-checks against @ledgerhook/webhooks
 * without @types/node: the declarations of the main entry, as tsc emits them, compile with the DOM
 * library and no Node types, and so does a receiver written against them. The Node adapter
 * (`@ledgerhook/webhooks/node`) is where Node's types belong.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { repoRoot } from './repo-root.js';

const ROOT = repoRoot(import.meta.url);
const PACKAGE = join(ROOT, 'packages', 'webhooks');
const OUT = join(PACKAGE, 'dist-types-check');

/** The package's declarations, emitted in memory from its sources (which do use Node's types). */
function declarations(): Map<string, string> {
  const emitted = new Map<string, string>();
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    declaration: true,
    emitDeclarationOnly: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: join(PACKAGE, 'src'),
    outDir: OUT,
  };
  const host = ts.createCompilerHost(options);
  host.writeFile = (fileName, text) => emitted.set(fileName, text);
  const program = ts.createProgram([join(PACKAGE, 'src', 'index.ts')], options, host);
  const result = program.emit(undefined, undefined, undefined, true);
  assert.deepEqual(
    result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    [],
  );
  return emitted;
}

const RECEIVER = `
import { createWebMiddleware, LedgerhookError, verifyWebhook, Webhooks, type EntityUpdateBody } from '@ledgerhook/webhooks';

const webhooks = new Webhooks({ secret: 'whsec_example' });
webhooks.on('ENTITY_UPDATE', (body: EntityUpdateBody) => {
  const names: readonly string[] = body.entities;
  return names.length;
});
export const handler: (request: Request) => Promise<Response> = createWebMiddleware(webhooks);
export async function check(body: string, token: string): Promise<boolean> {
  try {
    return (await verifyWebhook({ body, token, secrets: 'whsec_example' })).ok;
  } catch (error) {
    return error instanceof LedgerhookError ? false : Promise.reject(error);
  }
}
`;

describe('@ledgerhook/webhooks needs no @types/node', () => {
  it('its main entry and a Web receiver written against it compile with the DOM library alone', () => {
    const files = declarations();
    const receiver = join(ROOT, '.web-receiver.ts');
    files.set(receiver, RECEIVER);
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      // The emitted declarations are checked; TypeScript's own lib files (lib.dom.d.ts) are not, as they
      // are not the package's to prove and checking them costs most of the program's time.
      skipDefaultLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      paths: { '@ledgerhook/webhooks': [join(OUT, 'index.d.ts')] },
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (name) => files.get(name) ?? readFile(name);
    host.fileExists = (name) => files.has(name) || fileExists(name);
    const directoryExists = host.directoryExists?.bind(host);
    host.directoryExists = (dir) => dir.startsWith(OUT) || (directoryExists?.(dir) ?? true);
    host.getSourceFile = (name, version, onError, create) => {
      const text = files.get(name);
      return text === undefined
        ? getSourceFile(name, version, onError, create)
        : ts.createSourceFile(name, text, version);
    };
    const program = ts.createProgram([receiver], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(problems, []);
    // What the receiver reached is the emitted declarations, not the sources.
    assert.ok(program.getSourceFiles().some((file) => file.fileName === join(OUT, 'index.d.ts')));
    assert.ok(!program.getSourceFiles().some((file) => /[\\/]@types[\\/]node[\\/]/.test(file.fileName)));
  });
});
