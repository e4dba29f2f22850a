import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { runCli, startCli, tempDir, type RunningCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

const ACCESS_TOKEN = 'sandbox-access-token-5e3cr3t-0042';
const SANDBOX_SECRET = 'whsec_sandbox_secret_never_in_a_recording';
const LOCAL_SECRET = 'whsec_local_development_secret_for_replay';
const START = Date.parse('2026-11-24T10:00:00.000Z');

/** Every value that is someone's personal data: none may reach a recording, byte for byte. */
const PERSONAL = [
  'Alice Example',
  'alice@example.com',
  'DE89370400440532013000',
  'Bob Sample',
  'bob@example.org',
  'GB82WEST12345698765432',
  '4111111111111111',
  'Lunch with Alice Example',
  'Taxi home',
  'Office chairs',
  'Refund to Alice Example',
  'call carol@example.net back',
  'vip-client',
  'Erin New',
  'erin@example.io',
  'dave@example.com',
  'Dave Payer',
];

interface Expense {
  id: number;
  type: string;
  amount: number;
  vendor: string;
  description: string;
  counterparty: { name: string; email: string; iban: string };
  card: { cardNumber: string };
  memoLine: string;
  tags: string[];
}

const alice = { name: 'Alice Example', email: 'alice@example.com', iban: 'DE89370400440532013000' };
const bob = { name: 'Bob Sample', email: 'bob@example.org', iban: 'GB82WEST12345698765432' };

/**
 * Not the mock: a service written here with the quirks a real one has. Expenses only at
 * /rest/v5/expenses/expenses (its own 404 body elsewhere), whole-second lastUpdatedDate, `cursor: null`
 * on the last page, offset cursors, and one 429 the first time page 2 is asked for.
 */
async function quirkyService() {
  let clock = START;
  const items = new Map<number, { item: Expense; at: number }>();
  const deleted = new Map<number, number>();
  const descriptions = [
    'Lunch with Alice Example',
    'Taxi home',
    'Office chairs',
    'Taxi home',
    'Lunch with Alice Example',
  ];
  for (let id = 1; id <= 5; id += 1)
    items.set(id, {
      at: START - 60_000,
      item: {
        id,
        type: id % 2 ? 'PENDING' : 'BUSINESS',
        amount: id * 10.5,
        vendor: 'Shell',
        description: descriptions[id - 1] as string,
        counterparty: id % 2 ? alice : bob,
        card: { cardNumber: '4111111111111111' },
        memoLine: id === 3 ? 'call carol@example.net back' : 'ok',
        tags: id === 1 ? ['vip-client'] : [],
      },
    });
  let limited = false;
  const whole = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://service');
    if (url.pathname !== '/rest/v5/expenses/expenses')
      return send(response, 404, { status: 404, title: 'Not Found', detail: 'no such list' });
    if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`)
      return send(response, 401, { status: 401, title: 'Unauthorized' });
    const cursor = request.headers.cursor as string | undefined;
    const offset = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    if (offset === 2 && !limited) {
      limited = true;
      return send(response, 429, { status: 429, title: 'Too Many Requests' }, { 'retry-after': '0' });
    }
    const limit = Number(request.headers.limit ?? 100);
    const since = request.headers.lastupdateddate as string | undefined;
    const sinceMs = since ? Date.parse(since) : Number.NEGATIVE_INFINITY;
    const list = [...items.values()].filter((entry) => entry.at > sinceMs).map((entry) => entry.item);
    list.sort((a, b) => a.id - b.id);
    const page = list.slice(offset, offset + limit);
    const more = offset + limit < list.length;
    const body: Record<string, unknown> = {
      data: page,
      lastUpdatedDate: whole(clock),
      cursor: more ? Buffer.from(String(offset + limit)).toString('base64url') : null,
    };
    const gone = [...deleted].filter(([, at]) => at > sinceMs).map(([id]) => id);
    if (since && offset === 0 && gone.length > 0) body.deletedIds = gone;
    send(response, 200, body);
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
    /** A change a second later: one expense updated, one created, one deleted. */
    mutate() {
      clock += 1000;
      const updated = items.get(2) as { item: Expense; at: number };
      items.set(2, { at: clock, item: { ...updated.item, amount: 99.5, description: 'Refund to Alice Example' } });
      items.set(6, {
        at: clock,
        item: {
          id: 6,
          type: 'PENDING',
          amount: 12,
          vendor: 'Shell',
          description: 'Taxi home',
          counterparty: { name: 'Erin New', email: 'erin@example.io', iban: bob.iban },
          card: { cardNumber: '4111111111111111' },
          memoLine: 'ok',
          tags: [],
        },
      });
      items.delete(4);
      deleted.set(4, clock);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `condition` holds, failing after the deadline (never a fixed wait). */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every file of a directory as bytes, and the captured bodies decoded from their Base64. */
function allBytes(dir: string): Buffer {
  const files = readdirSync(dir).map((name) => readFileSync(join(dir, name)));
  const bodies = lines(join(dir, 'deliveries.jsonl')).map((record) => Buffer.from(record.body, 'base64'));
  return Buffer.concat([...files, ...bodies]);
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
/** A synced data file: a JSON array, one item per line. */
const items = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;

/** Equal but where the replay holds a redacted value (a keyed hash, "redacted:..."); returns the paths redacted. */
function equalButRedacted(original: unknown, replayed: unknown, path = '$', redacted: string[] = []): string[] {
  if (typeof replayed === 'string' && replayed.startsWith('redacted:')) {
    redacted.push(path.replace(/\[\d+\]/g, '[]'));
    return redacted;
  }
  if (Array.isArray(original) && Array.isArray(replayed)) {
    assert.equal(replayed.length, original.length, `${path}: length`);
    for (const [index, entry] of original.entries())
      equalButRedacted(entry, replayed[index], `${path}[${index}]`, redacted);
    return redacted;
  }
  if (typeof original === 'object' && original !== null && typeof replayed === 'object' && replayed !== null) {
    assert.deepEqual(Object.keys(replayed), Object.keys(original), `${path}: keys`);
    for (const key of Object.keys(original))
      equalButRedacted(
        (original as Record<string, unknown>)[key],
        (replayed as Record<string, unknown>)[key],
        `${path}.${key}`,
        redacted,
      );
    return redacted;
  }
  assert.deepEqual(replayed, original, path);
  return redacted;
}

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function started(args: string[], env: Record<string, string>): Promise<{ cli: RunningCli; first: any }> {
  const cli = startCli(args, { env });
  cleanups.push(() => cli.stop());
  const first = await cli.waitFor(
    (line) => typeof line === 'object' && (line.kind === 'recording' || line.kind === 'listening'),
  );
  return { cli, first };
}

describe('record a sandbox, replay it as a mock', () => {
  it('records a quirky service and its webhooks with no token and no personal data; mock --from serves the same sync, re-sends the webhooks in order and reproduces the incremental read', async () => {
    const service = await quirkyService();
    cleanups.push(service.close);
    const dir = tempDir();
    const config = tempDir('ledgerhook-config-');
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${ACCESS_TOKEN}\n`);
    const secretFile = join(dir, 'sandbox.secret');
    writeFileSync(secretFile, `${SANDBOX_SECRET}\n`);
    writeFileSync(join(config, 'local-webhook.secret'), `${LOCAL_SECRET}\n`, { mode: 0o600 });
    const recording = join(dir, 'recording');

    // 1. Record: the proxy in front of the service, a webhook listener in the same timeline.
    const recorder = await started(
      [
        'record',
        '--base-url',
        service.baseUrl,
        '--out',
        recording,
        '--port',
        '0',
        '--listen-port',
        '0',
        '--secret-file',
        secretFile,
        '--redact',
        'memoLine,$.data[*].tags',
        '--json',
      ],
      env,
    );
    const proxy = recorder.first.proxyUrl as string;
    // The syncs, and the reads of the recording, in-process; record and mock --from are the built bin.
    const sync = (base: string, target: string, out: string) =>
      runInProcess(
        ['sync', target, '--base-url', base, '--token-file', tokenFile, '--out', out, '--limit', '2', '--json'],
        {
          env,
        },
      );
    const recordedData = join(dir, 'recorded-data');
    const wrongPath = await sync(proxy, 'expense', recordedData);
    assert.equal(wrongPath.code, 3, wrongPath.stderr);
    const full = await sync(proxy, '/expenses/expenses', recordedData);
    assert.equal(full.code, 0, full.stderr);
    const fullSummary = JSON.parse(full.stdout);
    const firstSync = items(fullSummary.file);
    assert.deepEqual(
      firstSync.map((item) => item.id),
      [1, 2, 3, 4, 5],
    );

    service.mutate();
    const webhookBodies = [
      { userId: 'user_7', type: 'ENTITY_UPDATE', entities: ['expense'] },
      {
        userId: 'user_7',
        type: 'LIFECYCLE_EVENT',
        event: 'EXPENSE_ADDED',
        eventData: { expenseId: 6, payerEmail: 'dave@example.com', payerName: 'Dave Payer', count: 1 },
      },
    ];
    for (const body of webhookBodies) {
      const delivery = await buildDelivery({ body: JSON.stringify(body), secret: SANDBOX_SECRET });
      const answer = await postWebhook({ url: new URL(recorder.first.listenerUrl), ...delivery });
      assert.equal(answer.status, 200);
    }
    const incremental = await sync(proxy, '/expenses/expenses', recordedData);
    assert.equal(incremental.code, 0, incremental.stderr);
    const incrementalSummary = JSON.parse(incremental.stdout);
    assert.deepEqual(
      [incrementalSummary.mode, incrementalSummary.upserted, incrementalSummary.deleted],
      ['incremental', 2, 1],
    );
    const secondSync = items(incrementalSummary.file);
    assert.equal((await recorder.cli.stop()).code, 130, 'Ctrl-C: 130, as every interrupted command');

    // 2. The recording: no access token, no webhook secret or token, none of the personal values.
    const bytes = allBytes(recording);
    // eyJhbGci: the start of every JWT (`{"alg":`), the verification token included.
    for (const forbidden of [ACCESS_TOKEN, SANDBOX_SECRET, 'Bearer', 'eyJhbGci', ...PERSONAL])
      assert.equal(bytes.indexOf(Buffer.from(forbidden)), -1, `the recording holds ${forbidden}`);
    // The built bin: the one spawned run of recordings show.
    const shown = await runCli(['recordings', 'show', recording, '--json'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    const timeline = JSON.parse(shown.stdout);
    assert.deepEqual(
      timeline.events.map((event: any) => (event.kind === 'exchange' ? `${event.status} ${event.path}` : event.type)),
      [
        '404 /expenses',
        '200 /expenses/expenses',
        '429 /expenses/expenses',
        '200 /expenses/expenses',
        '200 /expenses/expenses',
        'ENTITY_UPDATE',
        'LIFECYCLE_EVENT',
        '200 /expenses/expenses',
      ],
    );
    assert.ok(
      timeline.events
        .filter((event: any) => event.kind === 'delivery')
        .every((event: any) => event.receipt === 'verified at receipt'),
    );
    const captures = await runInProcess(['captures', 'list', join(recording, 'deliveries.jsonl'), '--json'], { env });
    assert.equal(JSON.parse(captures.stdout).count, 2, captures.stderr);

    // 3. Replay: a second recorder in front of `mock --from` shows what the replay answers.
    const receiver = await startSpecReceiver({ secret: LOCAL_SECRET });
    cleanups.push(receiver.close);
    const mock = await started(
      [
        'mock',
        '--from',
        recording,
        '--port',
        '0',
        '--webhook-url',
        receiver.url,
        '--faults',
        'recorded',
        '--speed',
        '10',
        '--token',
        ACCESS_TOKEN,
        '--json',
      ],
      env,
    );
    const replayRecording = join(dir, 'replay-recording');
    const second = await started(
      ['record', '--base-url', mock.first.baseUrl, '--out', replayRecording, '--port', '0', '--json'],
      env,
    );
    const replayData = join(dir, 'replay-data');
    const replayWrong = await sync(second.first.proxyUrl, 'expense', replayData);
    assert.equal(replayWrong.code, 3, replayWrong.stderr);
    const replayFull = await sync(second.first.proxyUrl, '/expenses/expenses', replayData);
    assert.equal(replayFull.code, 0, replayFull.stderr);
    const replayFirst = items(JSON.parse(replayFull.stdout).file);
    const redacted = new Set(equalButRedacted(firstSync, replayFirst));
    assert.deepEqual(
      [...redacted].sort(),
      [
        '$[].card.cardNumber',
        '$[].counterparty.email',
        '$[].counterparty.iban',
        '$[].counterparty.name',
        '$[].description',
        '$[].memoLine',
        '$[].tags[]',
      ].sort(),
    );
    // Equal values stay equal: the same counterparty hashes the same in every item.
    assert.equal((replayFirst[0] as any).counterparty.email, (replayFirst[2] as any).counterparty.email);
    assert.notEqual((replayFirst[0] as any).counterparty.email, (replayFirst[1] as any).counterparty.email);

    // The webhooks again, in order, re-signed with the local secret (the receiver verifies with it alone).
    await until(() => receiver.received.length === 2, 'both webhooks were sent again');
    assert.deepEqual(
      receiver.received.map((delivery) => [delivery.status, delivery.reason]),
      [
        [200, 'ok'],
        [200, 'ok'],
      ],
    );
    const resent = receiver.received.map((delivery) => JSON.parse(delivery.body.toString()));
    assert.deepEqual(
      resent.map((body) => body.type),
      ['ENTITY_UPDATE', 'LIFECYCLE_EVENT'],
    );
    assert.match(resent[1].eventData.payerEmail, /^redacted:/);
    assert.equal(resent[1].eventData.expenseId, 6);

    const replayIncremental = await sync(second.first.proxyUrl, '/expenses/expenses', replayData);
    assert.equal(replayIncremental.code, 0, replayIncremental.stderr);
    const replaySummary = JSON.parse(replayIncremental.stdout);
    assert.deepEqual([replaySummary.mode, replaySummary.upserted, replaySummary.deleted], ['incremental', 2, 1]);
    equalButRedacted(secondSync, items(replaySummary.file));
    assert.equal((await second.cli.stop()).code, 130, 'Ctrl-C: 130, as every interrupted command');

    // What the replay answered, exchange by exchange, against what the service answered.
    const exchanges = (path: string) => lines(join(path, 'recording.jsonl')).filter((line) => line.kind === 'exchange');
    const recorded = exchanges(recording);
    const replayed = exchanges(replayRecording);
    assert.deepEqual(
      replayed.map((exchange) => exchange.status),
      recorded.map((exchange) => exchange.status),
      'the same statuses in the same places: the 404 body of the wrong path, the 429 at its place',
    );
    assert.deepEqual(replayed[0].body, recorded[0].body, "the service's own 404 body");
    for (const [index, exchange] of recorded.entries()) {
      if (exchange.status !== 200) continue;
      const again = replayed[index];
      assert.deepEqual(again.body.data, exchange.body.data, `#${index}: the same items`);
      assert.equal(again.body.lastUpdatedDate, exchange.body.lastUpdatedDate, `#${index}: the same whole-second date`);
      assert.deepEqual(again.body.deletedIds, exchange.body.deletedIds, `#${index}: the same deletedIds`);
      assert.equal(
        again.body.cursor === null,
        exchange.body.cursor === null,
        `#${index}: cursor null on the last page`,
      );
    }
    assert.deepEqual(replayed.at(-1).body, recorded.at(-1).body, 'the incremental read, reproduced');
  });
});
