import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

/**
 * `--otel` end to end with the built CLI, and the other half of "zero cost when not enabled":
 * without it, @opentelemetry/api is never even resolved. A module hook (node --import) writes down
 * every @opentelemetry/* import made by ledgerhook's own files; a setup file, as a user would
 * write one, registers an in-memory SDK and writes the finished spans out when the process exits.
 */
const SECRET = 'whsec_otel_cli';
const TOKEN = 'otel-cli-token';
// Inside the checkout (not /tmp) so that the setup file finds the SDK in its node_modules.
const FIXTURES = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), 'otel-fixture-'));
const HOOKS = join(FIXTURES, 'hooks.mjs');
const WATCH = join(FIXTURES, 'watch.mjs');
const SETUP = join(FIXTURES, 'otel-setup.mjs');

writeFileSync(
  HOOKS,
  `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (specifier.startsWith('@opentelemetry/') && !parent.includes('otel-fixture-'))
    appendFileSync(log, specifier + ' from ' + parent + '\\n');
  return next(specifier, context);
}
`,
);
writeFileSync(
  WATCH,
  `import { register } from 'node:module';
register(${JSON.stringify(new URL(`file://${HOOKS}`).href)}, { data: { log: process.env.OTEL_IMPORT_LOG } });
`,
);
writeFileSync(
  SETUP,
  `import { writeFileSync } from 'node:fs';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
process.on('exit', () => {
  const spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    id: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId,
    attributes: span.attributes,
  }));
  writeFileSync(process.env.OTEL_SPANS_FILE, JSON.stringify(spans));
});
`,
);

function signed(body: string): Record<string, string> {
  const token = makeToken({
    claims: { iat: Math.floor(Date.now() / 1000), request_body_sha256: bodyHash(body) },
    secret: SECRET,
  });
  return { 'content-type': 'application/json', 'service-verification': token };
}

const imported = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

/** listen --sync as users run it, one signed ENTITY_UPDATE through it, then Ctrl-C. */
async function listenOnce(baseUrl: string, extraArgs: string[], env: Record<string, string>) {
  const out = tempDir();
  const listener = startCli(
    [
      'listen',
      '--port',
      '0',
      '--json',
      '--sync',
      '--secret',
      SECRET,
      '--base-url',
      baseUrl,
      '--token',
      TOKEN,
      '--limit',
      '4',
      '--out',
      out,
      ...extraArgs,
    ],
    { env },
  );
  const { url } = await listener.waitFor((line) => line?.kind === 'listening');
  const body = JSON.stringify({ userId: 'user-1', type: 'ENTITY_UPDATE', entities: ['expense'] });
  assert.equal((await fetch(url, { method: 'POST', headers: signed(body), body })).status, 200);
  await listener.waitFor((line) => line?.kind === 'sync-done');
  const exit = await listener.stop('SIGINT');
  assert.equal(exit.code, 130, listener.stderr());
}

describe('telemetry from the CLI', () => {
  const closers: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of closers) await close();
    rmSync(FIXTURES, { recursive: true, force: true });
  });

  it('without --otel, listen --sync, --help and verify never import @opentelemetry/api', async () => {
    const api = await startPagedListServer(6);
    closers.push(api.close);
    const log = join(tempDir(), 'imports.log');
    const env = { NODE_OPTIONS: `--import=${WATCH}`, OTEL_IMPORT_LOG: log };
    await listenOnce(api.baseUrl, [], env);
    for (const args of [
      ['--help'],
      ['listen', '--help'],
      ['verify', '--data', '{}', '--token', 'x.y.z', '--secret', 's'],
    ])
      await runCli(args, { env });
    assert.deepEqual(imported(log), []);
  });

  it('with --otel and a setup file, one delivery is one trace: receipt → verify, capture → sync → pages → commit', async () => {
    const api = await startPagedListServer(6);
    closers.push(api.close);
    const log = join(tempDir(), 'imports.log');
    const spansFile = join(tempDir(), 'spans.json');
    const env = {
      NODE_OPTIONS: `--import=${WATCH} --import=${SETUP}`,
      OTEL_IMPORT_LOG: log,
      OTEL_SPANS_FILE: spansFile,
    };
    await listenOnce(api.baseUrl, ['--otel'], env);
    // The detector above is not vacuous: this time ledgerhook did import the API.
    assert.ok(
      imported(log).some((line) => line.startsWith('@opentelemetry/api from ')),
      imported(log).join('\n'),
    );
    const spans = JSON.parse(readFileSync(spansFile, 'utf8')) as Array<{ name: string; id: string; parent?: string }>;
    const byId = new Map(spans.map((span) => [span.id, span]));
    const path = (name: string) => {
      const names: string[] = [];
      for (let span = spans.find((s) => s.name === name); span; span = span.parent ? byId.get(span.parent) : undefined)
        names.unshift(span.name);
      return names.join(' → ');
    };
    assert.equal(path('ledgerhook.verify'), 'ledgerhook.delivery → ledgerhook.verify');
    assert.equal(path('ledgerhook.capture'), 'ledgerhook.delivery → ledgerhook.capture');
    assert.equal(path('ledgerhook.sync.page'), 'ledgerhook.delivery → ledgerhook.sync → ledgerhook.sync.page');
    assert.equal(path('ledgerhook.store.commit'), 'ledgerhook.delivery → ledgerhook.sync → ledgerhook.store.commit');
    assert.equal(spans.filter((span) => span.name === 'ledgerhook.sync.page').length, 2, '6 items, 4 a page');
  });

  it("docs/scale.md's console setup prints sync's spans and metrics (sync --otel)", async () => {
    const snippet = fileURLToPath(new URL('../../test/e2e/snippets/otel-console.mjs', import.meta.url));
    const guide = readFileSync(new URL('../../docs/scale.md', import.meta.url), 'utf8');
    assert.ok(guide.includes(readFileSync(snippet, 'utf8').trim()), 'docs/scale.md shows otel-console.mjs verbatim');
    const api = await startPagedListServer(3);
    closers.push(api.close);
    const result = await runCli(
      ['sync', 'expenses', '--otel', '--base-url', api.baseUrl, '--token', TOKEN, '--out', tempDir()],
      { env: { NODE_OPTIONS: `--import=${snippet}` } },
    );
    assert.equal(result.code, 0, result.stderr);
    for (const name of ['ledgerhook.sync', 'ledgerhook.sync.page', 'ledgerhook.store.commit'])
      assert.match(result.stdout, new RegExp(`name: '${name.replaceAll('.', '\\.')}'`));
    // Metrics pushed before the CLI exits (its flush), not lost with the 10 s export interval.
    assert.match(result.stdout, /ledgerhook\.sync\.duration/);
    assert.ok(!result.stdout.includes(TOKEN), 'the access token is not in what is exported');
  });

  it('LEDGERHOOK_OTEL=1 is --otel; with no provider registered, nothing is recorded and the delivery syncs', async () => {
    const api = await startPagedListServer(2);
    closers.push(api.close);
    const log = join(tempDir(), 'imports.log');
    await listenOnce(api.baseUrl, [], {
      NODE_OPTIONS: `--import=${WATCH}`,
      OTEL_IMPORT_LOG: log,
      LEDGERHOOK_OTEL: '1',
    });
    assert.ok(imported(log).some((line) => line.startsWith('@opentelemetry/api from ')));
  });
});
