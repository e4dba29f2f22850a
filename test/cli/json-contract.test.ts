/**
 * The one --json contract (docs/json.md), for every command that takes --json: the list is read from
 * the command tree, so a command added with --json and not added here fails the first test.
 * Answer-once commands run in-process (same definitions, command modules and json-output.ts as main.ts)
 * with a spawned sample through main.ts itself; JSON Lines commands are spawned (Ctrl-C ends them
 * with 130) and their failures at start-up run in-process.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ERROR_REASONS } from '../../src/error-reasons.js';
import { startListener } from '../../src/listen/listener.js';
import { startMockServer, type RunningMockServer } from '../../src/mock/mock-server.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { type CliResult, runCli, startCli, tempDir } from '../helpers/cli.js';
import { programFromDefinitions, runInProcess, startInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';
import { createTestSchema, dropQueueKeys, REDIS_URL, servicesSkip, testQueueName } from '../scale/helpers/services.js';

/** The one queue this file's commands use, dropped at its end. */
const QUEUE = testQueueName('json');

const SECRET = 'whsec_json_contract';
const COMMANDER_REASONS = new Set([
  'unknown_option',
  'invalid_argument',
  'missing_argument',
  'missing_mandatory_option_value',
  'option_missing_argument',
  'excess_arguments',
  'unknown_command',
]);
const BODY = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });

/** Every command path that takes --json, from the same definitions main.ts builds. */
function jsonCommands(): string[] {
  const found: string[] = [];
  const walk = (command: ReturnType<typeof programFromDefinitions>, path: string[]) => {
    for (const sub of command.commands) {
      const here = [...path, sub.name()];
      if (sub.options.some((option) => option.long === '--json')) found.push(here.join(' '));
      walk(sub as ReturnType<typeof programFromDefinitions>, here);
    }
  };
  walk(
    programFromDefinitions(async () => {}, { out() {}, err() {} }),
    [],
  );
  return found.sort();
}

interface Fixtures {
  capture: string;
  receiver: string;
  mock: RunningMockServer;
  token: string;
  env: Record<string, string>;
  /** One output directory for the sync and reconcile rows. */
  out: string;
  /** A recording directory (ledgerhook record), empty but for its header. */
  recording: string;
}

type Args = (f: Fixtures) => string[];
/** Answer-once commands: a run that succeeds and one that fails (services: needs Redis and Postgres; env: variables of the ok run). */
const ONCE: Record<
  string,
  { ok: Args; fail: Args; services?: boolean; env?: (f: Fixtures) => Record<string, string> }
> = {
  demo: { ok: () => ['demo'], fail: (f) => ['demo', '--out', f.capture] },
  sign: {
    ok: () => ['sign', '--data', BODY, '--secret', SECRET],
    fail: () => ['sign', '--data', BODY, '--secret', SECRET, '--format', 'curl'],
  },
  verify: {
    ok: (f) => ['verify', '--data', BODY, '--token', f.token, '--secret', SECRET],
    fail: (f) => ['verify', '--data', `${BODY} `, '--token', f.token, '--secret', SECRET],
  },
  'send-sample': {
    ok: (f) => ['send-sample', 'ENTITY_UPDATE', '--to', f.receiver, '--secret', SECRET],
    fail: () => ['send-sample', 'ENTITY_UPDATE', '--to', '1', '--secret', SECRET],
  },
  'check-consumer': {
    ok: (f) => [
      'check-consumer',
      '--to',
      `${f.env.CONSUMER}/webhooks`,
      '--state',
      `${f.env.CONSUMER}/state`,
      '--secret',
      SECRET,
      '--mock-port',
      f.env.CONSUMER_MOCK_PORT ?? '',
      '--only',
      'baseline',
      '--settle',
      '5s',
    ],
    fail: (f) => ['check-consumer', '--to', f.receiver, '--state', 'http://10.0.0.1/state', '--secret', SECRET],
  },
  'check-receiver': {
    ok: (f) => ['check-receiver', '--to', f.receiver, '--secret', SECRET],
    fail: () => ['check-receiver', '--to', '1', '--secret', SECRET],
  },
  replay: {
    ok: (f) => ['replay', f.capture, '--to', f.receiver, '--secret', SECRET],
    fail: (f) => ['replay', `${f.capture}.missing`, '--to', f.receiver, '--secret', SECRET],
  },
  'recordings show': {
    ok: (f) => ['recordings', 'show', f.recording],
    fail: (f) => ['recordings', 'show', `${f.recording}.missing`],
  },
  'captures list': { ok: (f) => ['captures', 'list', f.capture], fail: (f) => ['captures', 'list', `${f.capture}.x`] },
  'captures show': { ok: (f) => ['captures', 'show', f.capture], fail: (f) => ['captures', 'show', `${f.capture}:9`] },
  sync: {
    ok: (f) => ['sync', 'expenses', '--base-url', f.mock.url, '--token', f.mock.token, '--out', f.out],
    fail: (f) => ['sync', 'expenses', '--base-url', f.mock.url, '--token', 'wrong', '--out', tempDir()],
  },
  // Reconciles what the sync row above wrote (the table runs in order, with one settings directory).
  reconcile: {
    ok: (f) => ['reconcile', 'expenses', '--base-url', f.mock.url, '--token', f.mock.token, '--out', f.out],
    fail: (f) => ['reconcile', '/never-synced', '--base-url', f.mock.url, '--token', f.mock.token, '--out', f.out],
  },
  // Against the mock, which needs nothing but its base URL (stored by --write for local).
  probe: {
    ok: (f) => ['probe', '--env', 'local', '--base-url', f.mock.url, '--token', f.mock.token, '--write'],
    fail: (f) => ['probe', '--env', 'local', '--base-url', f.mock.url, '--token', 'wrong'],
  },
  history: {
    ok: (f) => ['history', 'expenses', '7', '--out', f.out],
    fail: (f) => ['history', 'expenses', '--out', f.out, '--store', 'mysql://x'],
  },
  freshness: { ok: () => ['freshness'], fail: (f) => ['freshness', '--capture', `${f.capture}.missing`] },
  'state list': { ok: () => ['state', 'list'], fail: () => ['state', 'list', '--env', 'nowhere'] },
  'state show': {
    ok: (f) => ['state', 'show', 'expenses', '--base-url', f.mock.url],
    fail: () => ['state', 'show', '/never-synced'],
  },
  'state reset': { ok: () => ['state', 'reset', '/never-synced'], fail: () => ['state', 'reset'] },
  'queue status': {
    ok: () => ['queue', 'status', '--queue', REDIS_URL, '--queue-name', QUEUE],
    fail: () => ['queue', 'status', '--queue', 'redis://127.0.0.1:1'],
    services: true,
  },
  'queue retry': {
    ok: () => ['queue', 'retry', '--queue', REDIS_URL, '--queue-name', QUEUE],
    fail: () => ['queue', 'retry', '--queue', 'redis://127.0.0.1:1'],
    services: true,
  },
  'store migrate': {
    ok: (f) => ['store', 'migrate', '--store', f.env.STORE ?? ''],
    fail: () => ['store', 'migrate', '--store', 'postgres://127.0.0.1:1/none'],
    services: true,
  },
  events: { ok: () => ['events'], fail: () => ['events', '--bogus'] },
  entities: { ok: () => ['entities'], fail: () => ['entities', '--bogus'] },
  'config list': { ok: () => ['config', 'list'], fail: () => ['config', 'list', '--env', 'nowhere'] },
  status: {
    ok: () => ['status', '--env', 'production'],
    env: (f) => ({ LEDGERHOOK_BASE_URL: f.mock.url, LEDGERHOOK_TOKEN: f.mock.token }),
    fail: () => ['status', '--env', 'production'],
  },
};

/** Commands that run until stopped (JSON Lines): how to start one, and how to make it fail. */
const LINES: Record<string, { ok: Args; fail: Args; services?: boolean }> = {
  listen: {
    ok: () => ['listen', '--port', '0', '--secret', SECRET],
    fail: (f) => ['listen', '--port', f.env.BUSY ?? ''],
  },
  mock: { ok: () => ['mock', '--port', '0'], fail: (f) => ['mock', '--port', f.env.BUSY ?? ''] },
  record: {
    ok: (f) => ['record', '--base-url', f.mock.url, '--out', join(tempDir(), 'recording'), '--port', '0'],
    fail: (f) => [
      'record',
      '--base-url',
      f.mock.url,
      '--out',
      join(tempDir(), 'recording'),
      '--port',
      f.env.BUSY ?? '',
    ],
  },
  'mock --from': {
    ok: (f) => ['mock', '--from', f.recording, '--port', '0'],
    fail: (f) => ['mock', '--from', `${f.recording}.missing`, '--port', '0'],
  },
  inspect: {
    ok: (f) => ['inspect', f.capture, '--port', '0', '--secret', SECRET],
    fail: (f) => ['inspect', `${f.capture}.missing`],
  },
  worker: {
    ok: (f) => ['worker', '--queue', REDIS_URL, '--queue-name', QUEUE, '--store', f.env.STORE ?? ''],
    fail: () => ['worker', '--queue', REDIS_URL, '--store', 'postgres://127.0.0.1:1/none'],
    services: true,
  },
  'sync --watch': {
    ok: (f) => ['sync', 'expenses', '--base-url', f.mock.url, '--token', f.mock.token, '--out', tempDir(), '--watch'],
    // Nothing configured for sandbox: refused at start-up, after the stream began.
    fail: () => ['sync', 'expenses', '--watch', '--env', 'sandbox'],
  },
};

/**
 * JSON Lines commands run in-process (startInProcess) where a process of the same command is started
 * elsewhere: mock in this table, sync --watch in reconcile-cli.test.ts, record in record-replay.test.ts.
 * inspect needs its built page beside the bin, and the worker's Postgres pool would keep this process
 * alive: those stay processes.
 */
const IN_PROCESS_LINES = new Set(['mock --from', 'sync --watch', 'record']);

/** A consumer for check-consumer's row: accepts every delivery; its state is the mock's own data. */
async function startTruthConsumer(mockPort: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET') return void res.end('{}');
    const truth = await fetch(`http://127.0.0.1:${mockPort}/__mock/dataset?path=/expenses`).then((r) => r.json());
    res.end(JSON.stringify({ users: { user_7f3c2a91: { '/expenses': (truth as { data: unknown[] }).data } } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function assertDocument(result: CliResult, expectOk: boolean, label: string) {
  let document: Record<string, any>;
  try {
    document = JSON.parse(result.stdout);
  } catch {
    assert.fail(`${label}: stdout is not one JSON document:\n${result.stdout}\nstderr: ${result.stderr}`);
  }
  assert.equal(document.ok, expectOk, `${label}: ${result.stdout.slice(0, 400)} ${result.stderr}`);
  if (expectOk) {
    assert.equal(result.code, 0, `${label}: ${result.stderr}`);
    assert.equal(document.error, undefined, label);
  } else {
    assert.notEqual(result.code, 0, label);
    assert.deepEqual(Object.keys(document.error).sort(), ['code', 'exitCode', 'message', 'reason'], label);
    assert.equal(document.error.exitCode, result.code, `${label}: error.exitCode is the exit code`);
    assert.match(document.error.code, /^ERR_[A-Z_]+$/, label);
    assert.match(document.error.reason, /^[a-z][a-z0-9_]*$/, label);
    // Every library error says which (ERROR_REASONS); a flag refused while parsing has commander's reason.
    if (document.error.code !== 'ERR_USAGE' || !COMMANDER_REASONS.has(document.error.reason))
      assert.ok(
        (ERROR_REASONS as readonly string[]).includes(document.error.reason),
        `${label}: ${document.error.reason}`,
      );
    assert.ok(result.stderr.trim().split('\n').at(-1), `${label}: the error line is on stderr too`);
  }
  return document;
}

describe('one JSON contract for every --json', () => {
  let fixtures: Fixtures;
  let busy: Server;
  let dropSchema: (() => Promise<void>) | undefined;
  let skip: string | false = false;
  const closers: Array<() => Promise<unknown>> = [];

  before(async () => {
    const dir = tempDir();
    const capture = join(dir, 'deliveries.jsonl');
    const listener = await startListener({ port: 0, verification: { secrets: [SECRET] }, capture: { path: capture } });
    const token = await signWebhook(BODY, SECRET);
    await (
      await fetch(listener.url, { method: 'POST', body: BODY, headers: { 'service-verification': token } })
    ).text();
    await listener.close();
    const receiver = await startSpecReceiver({ secret: SECRET });
    closers.push(receiver.close);
    const mock = await startMockServer({ port: 0, items: 20 });
    closers.push(() => mock.close());
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => busy.close(resolve)));
    const env: Record<string, string> = { BUSY: String((busy.address() as AddressInfo).port) };
    // check-consumer's consumer: its state is always the service's truth, read from the mock it runs.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const consumerMockPort = String((probe.address() as AddressInfo).port);
    await new Promise((resolve) => probe.close(resolve));
    const consumer = await startTruthConsumer(consumerMockPort);
    closers.push(consumer.close);
    Object.assign(env, { CONSUMER: consumer.url, CONSUMER_MOCK_PORT: consumerMockPort });
    skip = await servicesSkip();
    if (!skip) {
      const schema = await createTestSchema();
      env.STORE = schema.url;
      dropSchema = () => schema.drop();
    }
    const recording = join(dir, 'recording');
    mkdirSync(recording);
    writeFileSync(
      join(recording, 'recording.jsonl'),
      `${JSON.stringify({ kind: 'recording', format: 1, startedAt: new Date().toISOString(), baseUrl: mock.url, basePath: '/rest/v5', redaction: { keyId: 'k', fields: [] } })}\n`,
    );
    fixtures = { capture, receiver: receiver.url, mock, token, env, out: join(dir, 'out'), recording };
  });

  after(async () => {
    for (const close of closers) await close();
    await dropSchema?.();
    await dropQueueKeys(QUEUE).catch(() => {});
  });

  it('covers every command that takes --json, once-only or JSON Lines', () => {
    const tabled = [
      ...Object.keys(ONCE),
      ...Object.keys(LINES).filter((name) => name !== 'sync --watch' && name !== 'mock --from'),
    ].sort();
    assert.deepEqual(tabled, jsonCommands());
  });

  it('answer-once commands print one document: {ok:true,...} or {ok:false, error:{code,reason,message,exitCode}}', async () => {
    // One settings directory for the table: state show reads what sync wrote.
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    for (const [name, row] of Object.entries(ONCE)) {
      if (row.services && skip) continue;
      assertDocument(
        await runInProcess([...row.ok(fixtures), '--json'], { env: { ...env, ...row.env?.(fixtures) } }),
        true,
        `${name} (ok)`,
      );
      assertDocument(await runInProcess([...row.fail(fixtures), '--json'], { env }), false, `${name} (fail)`);
    }
  });

  it('through the real entry point too, keeping partial results beside the error', async () => {
    const failedVerify = assertDocument(await runCli([...ONCE.verify!.fail(fixtures), '--json']), false, 'verify');
    assert.equal(failedVerify.authentic, false, 'the verdict stays beside the error');
    assert.equal(failedVerify.error.code, 'ERR_CHECK_FAILED');
    const failedSync = assertDocument(await runCli([...ONCE.sync!.fail(fixtures), '--json']), false, 'sync');
    assert.equal(failedSync.dataset, '/expenses');
    // A token the service refuses (401) is its own exit code, 4, as gh's authentication failure.
    assert.deepEqual(
      [failedSync.error.code, failedSync.error.reason, failedSync.error.exitCode],
      ['ERR_AUTH', 'token_rejected', 4],
    );
    const usage = assertDocument(await runCli(['entities', '--json', '--bogus']), false, 'usage');
    assert.equal(usage.error.reason, 'unknown_option');
    const entities = assertDocument(await runCli(['entities', '--json']), true, 'entities');
    assert.ok(Array.isArray(entities.entities));
    // --json is what the parse says: `--data --json` gives --data that value, and no document is printed.
    const dataJson = await runCli(['verify', '--data', '--json', '--token', 'abc', '--secret', 'whsec-test']);
    assert.equal(dataJson.code, 1);
    assert.match(dataJson.stdout, /not authentic/);
    assert.doesNotMatch(dataJson.stdout, /"ok"/);
  });

  it('long-running commands print JSON Lines with kind and time; a failure is an error line', async () => {
    for (const [name, row] of Object.entries(LINES)) {
      if (row.services && skip) continue;
      const args = [...row.ok(fixtures), '--json'];
      const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
      const inProcess = IN_PROCESS_LINES.has(name);
      const running = inProcess ? startInProcess(args, { env }) : startCli(args, { env });
      await running.waitFor((line) => typeof line === 'object' && line !== null, 30_000);
      // Ctrl-C is an interruption (130, the exit-code table), after the summary line; in-process the
      // command ends with 0, main.ts turns the interruption into 130.
      const { code } = await running.stop();
      assert.equal(code, inProcess ? 0 : 130, `${name}: ${running.stderr()}`);
      for (const line of running.lines) {
        const event = JSON.parse(line);
        assert.deepEqual(Object.keys(event).slice(0, 2), ['kind', 'time'], `${name}: ${line}`);
        assert.ok(!Number.isNaN(Date.parse(event.time)), `${name}: ${line}`);
      }

      // A failure at start-up, in-process: the same command module and json-output.ts as main.ts.
      const failed = await runInProcess([...row.fail(fixtures), '--json']);
      const lines = failed.stdout.trim().split('\n');
      const last = JSON.parse(lines.at(-1) ?? '');
      assert.equal(last.kind, 'error', `${name}: ${failed.stdout}${failed.stderr}`);
      assert.equal(last.ok, false);
      assert.equal(last.error.exitCode, failed.code, name);
      assert.notEqual(failed.code, 0, name);
    }
  });
});
