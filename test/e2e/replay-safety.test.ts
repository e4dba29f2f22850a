import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { resolveSampleType } from '../../src/catalogue/resolve.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody } from '../../src/samples/sample-body.js';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';
import { startSpecReceiver as startReceiver, type SpecReceiverOptions } from '../helpers/spec-receiver.js';

const SECRET = 'whsec_replay_safety_secret_0001';

// A failed assertion must not leave a receiver open (the test process would never end).
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});
async function startSpecReceiver(options: SpecReceiverOptions) {
  const receiver = await startReceiver(options);
  cleanups.push(receiver.close);
  return receiver;
}
const RECEIVED_AT = 1_700_000_000;

/** What `send-sample TYPE --to url [--secret S | --unsigned]` sends, sent in-process; resolves with the status. */
async function sendSample(url: string, type: string, secret: string | undefined): Promise<number> {
  const { type: webhookType, event } = resolveSampleType(type);
  const body = Buffer.from(JSON.stringify(buildSampleBody({ type: webhookType, event: event?.name })), 'utf8');
  const delivery = await buildDelivery({ body, secret });
  const response = await postWebhook({ url: new URL(url), body: delivery.body, headers: delivery.headers });
  return response.status;
}

interface RecordSpec {
  id: string;
  valid: boolean | null;
  code?: string;
  body?: string;
  token?: string | string[];
  headerName?: string;
  bodyTruncated?: boolean;
}

/** A capture line as listen writes it, built from first principles (no ledgerhook code). */
function captureLine(spec: RecordSpec): string {
  const body = spec.body ?? JSON.stringify({ userId: `user_${spec.id}`, type: 'ENTITY_UPDATE', entities: ['expense'] });
  const headerName = spec.headerName ?? 'service-verification';
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
  if (spec.token !== undefined) headers[headerName] = spec.token;
  return JSON.stringify({
    id: spec.id,
    receivedAt: new Date(RECEIVED_AT * 1000).toISOString(),
    method: 'POST',
    path: '/',
    headers,
    headerName,
    body: Buffer.from(spec.bodyTruncated ? body.slice(0, 10) : body).toString('base64'),
    bodyBytes: Buffer.byteLength(body),
    ...(spec.bodyTruncated ? { bodyTruncated: true, bodySha256: bodyHash(body) } : {}),
    verdict: {
      valid: spec.valid,
      status: spec.valid === false ? 400 : 200,
      ...(spec.code ? { code: spec.code } : {}),
    },
    type: 'ENTITY_UPDATE',
    userId: `user_${spec.id}`,
    entities: ['expense'],
  });
}

function signed(body: string, secret = SECRET, iat = RECEIVED_AT): string {
  return makeToken({ claims: { iat, request_body_sha256: bodyHash(body) }, secret });
}

function writeCapture(specs: RecordSpec[]): string {
  const file = join(tempDir(), 'capture.jsonl');
  writeFileSync(file, `${specs.map(captureLine).join('\n')}\n`);
  return file;
}

const bodyOf = (id: string) => JSON.stringify({ userId: `user_${id}`, type: 'ENTITY_UPDATE', entities: ['expense'] });

/** One valid, one forged (wrong secret), one unverified (a genuine delivery, captured by a listener without a secret). */
function mixedCapture(): string {
  return writeCapture([
    { id: 'dlv_valid', valid: true, token: signed(bodyOf('dlv_valid')) },
    { id: 'dlv_forged', valid: false, code: 'bad_signature', token: signed(bodyOf('dlv_forged'), 'attacker') },
    { id: 'dlv_open', valid: null, token: signed(bodyOf('dlv_open')) },
  ]);
}

/**
 * The first test runs listen and replay as real processes: a capture written by a live listener, replayed by the
 * CLI into an independent receiver. The rest are replay and verify flag variants and input checks over capture
 * files written here; they run in-process (runInProcess: same definitions, command modules and exit-code mapping),
 * where a spawn cost ~0.3 s of CPU and proved nothing more. replay, verify and config keep spawned tests here and
 * in listen-replay.test.ts, sign-verify.test.ts and config.test.ts.
 */
/** `ledgerhook replay CAPTURE --to URL ...flags`, in-process. */
const replayInProcess = (capture: string, to: string, flags: string[], options?: Parameters<typeof runInProcess>[1]) =>
  runInProcess(['replay', capture, '--to', to, ...flags], options);

describe('replay never launders forgeries', () => {
  it('by default, forged deliveries captured by listen never reach an independent receiver', async () => {
    const capture = join(tempDir(), 'listen.jsonl');
    const listen = startCli(['listen', '--port', '0', '--json', '--secret', SECRET, '--capture', capture]);
    const { url } = await listen.waitFor((line) => line?.kind === 'listening');
    // Sent in-process, as send-sample builds them (its own spawned tests are in test/cli/send-sample.test.ts):
    // here listen and replay are the processes under test.
    assert.equal(await sendSample(url, 'ENTITY_UPDATE', SECRET), 200);
    assert.equal(await sendSample(url, 'INVOICE_PAID', 'wrong-secret'), 400);
    assert.equal(await sendSample(url, 'INVOICE_VIEWED', undefined), 400);
    await listen.waitFor((line) => line?.kind === 'delivery' && line.verdict?.code === 'missing_token');
    await listen.stop();
    assert.equal(readFileSync(capture, 'utf8').trim().split('\n').length, 3);

    const receiver = await startSpecReceiver({ secret: SECRET });
    const replayed = await runCli(['replay', capture, '--to', receiver.url, '--secret', SECRET]);
    await receiver.close();
    assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
    assert.equal(receiver.received.length, 1, 'only the delivery verified at receipt is sent');
    assert.match(receiver.received[0]?.body.toString() ?? '', /ENTITY_UPDATE/);
    assert.match(replayed.stdout, /\[valid\] re-signed → 200/);
    assert.match(
      replayed.stderr,
      /skipped 2 deliveries not verified at receipt \(refused: bad_signature, refused: missing_token\)/,
    );
  });

  it('--include-refused sends refused deliveries with their original token; --resign-refused never re-signs a forgery', async () => {
    const capture = mixedCapture();
    const receiver = await startSpecReceiver({ secret: SECRET, skipExpiry: true });
    const asCaptured = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--include-refused',
      '--json',
    ]);
    assert.equal(asCaptured.code, 1, 'the forged one is rejected by the receiver');
    const report = JSON.parse(asCaptured.stdout);
    assert.deepEqual(
      report.results.map((r: { id: string; verdict: string; mode: string; status: number }) => [
        r.id,
        r.verdict,
        r.mode,
        r.status,
      ]),
      [
        ['dlv_valid', 'valid', 're-signed', 200],
        ['dlv_forged', 'refused: bad_signature', 'as-captured', 400],
      ],
    );
    assert.deepEqual(report.skipped, [{ id: 'dlv_open', verdict: 'unverified' }]);
    const forgedHeader = receiver.received[1]?.headers['service-verification'];
    assert.equal(forgedHeader, signed(bodyOf('dlv_forged'), 'attacker'), 'sent exactly as captured');

    // Re-signed only when the original token verifies now: a forgery's does not, so nothing is sent.
    const sent = receiver.received.length;
    const resigned = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--include-refused',
      '--resign-refused',
      '--id',
      'dlv_forged',
    ]);
    await receiver.close();
    assert.equal(resigned.code, 1, resigned.stderr);
    assertOneLineError(resigned);
    assert.match(resigned.stderr, /nothing was sent: delivery dlv_forged would be re-signed, .*\(bad_signature/);
    assert.equal(receiver.received.length, sent);
  });

  it('deliveries captured without a secret need --include-unverified; only they selected is exit 2 naming the flag', async () => {
    const capture = mixedCapture();
    const receiver = await startSpecReceiver({ secret: SECRET });
    const refusedAlone = await replayInProcess(capture, receiver.url, ['--secret', SECRET, '--id', 'dlv_open']);
    assert.equal(refusedAlone.code, 2);
    assertOneLineError(refusedAlone);
    assert.match(refusedAlone.stderr, /1 unverified delivery.*--include-unverified/);
    const included = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--id',
      'dlv_open',
      '--include-unverified',
    ]);
    await receiver.close();
    assert.equal(included.code, 0, included.stderr);
    assert.match(included.stdout, /\[unverified\] re-signed → 200/);
    assert.equal(receiver.received.length, 1);
    const bad = await replayInProcess(capture, receiver.url, ['--secret', SECRET, '--resign-refused']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--include-refused/);
  });

  it('--dry-run lists what would be sent and how, and sends nothing', async () => {
    const capture = mixedCapture();
    const receiver = await startSpecReceiver({ secret: SECRET });
    const human = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--include-refused',
      '--include-unverified',
      '--dry-run',
    ]);
    const json = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--include-refused',
      '--dry-run',
      '--json',
    ]);
    await receiver.close();
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /dlv_valid .*\[valid\] re-signed \(dry run: not sent\)/);
    assert.match(human.stdout, /dlv_forged .*\[refused: bad_signature\] as captured \(dry run: not sent\)/);
    assert.match(human.stdout, /dlv_open .*\[unverified\] re-signed/);
    assert.match(human.stdout, /would send 3 deliveries/);
    const report = JSON.parse(json.stdout);
    assert.equal(report.dryRun, true);
    assert.deepEqual(
      report.deliveries.map((d: { id: string; mode: string }) => [d.id, d.mode]),
      [
        ['dlv_valid', 're-signed'],
        ['dlv_forged', 'as-captured'],
      ],
    );
    assert.equal(receiver.received.length, 0);
  });

  it('refuses a delivery whose body was not captured in full (replay and verify), never sending the head', async () => {
    const body = bodyOf('dlv_big');
    const capture = writeCapture([
      { id: 'dlv_big', valid: false, code: 'body_mismatch', token: signed(body), body, bodyTruncated: true },
    ]);
    const receiver = await startSpecReceiver({ secret: SECRET });
    const replayed = await replayInProcess(capture, receiver.url, ['--secret', SECRET, '--include-refused']);
    await receiver.close();
    assert.equal(replayed.code, 2);
    assertOneLineError(replayed);
    assert.match(replayed.stderr, /not captured in full/);
    assert.equal(receiver.received.length, 0);
    const verified = await runInProcess(['verify', '--delivery', capture, '--secret', SECRET]);
    assert.equal(verified.code, 2);
    assertOneLineError(verified);
    assert.match(verified.stderr, /not captured in full/);
  });
});

describe('header name: one resolution order', () => {
  it('replay uses the stored headerName setting', async () => {
    const configDir = tempDir();
    const set = await runInProcess(['config', 'set', 'headerName', 'Acme-Verification'], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    assert.equal(set.code, 0, set.stderr);
    const capture = mixedCapture();
    const receiver = await startSpecReceiver({ secret: SECRET, headerName: 'Acme-Verification' });
    const replayed = await replayInProcess(capture, receiver.url, ['--secret', SECRET], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    await receiver.close();
    assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
    assert.equal(receiver.received[0]?.status, 200);
    assert.equal(receiver.received[0]?.headers['service-verification'], undefined);
  });

  it('verify --header honours the name in the line', async () => {
    const body = '{"a":1}';
    const token = signed(body, SECRET, Math.floor(Date.now() / 1000));
    const wrongName = await runInProcess([
      'verify',
      '--data',
      body,
      '--header',
      `Authorization: ${token}`,
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(wrongName.code, 1);
    const report = JSON.parse(wrongName.stdout);
    assert.equal(report.code, 'missing_token');
    assert.match(report.hints.join(' '), /named Authorization/);
    const chosen = await runInProcess([
      'verify',
      '--data',
      body,
      '--header',
      `Acme-Verification: ${token}`,
      '--header-name',
      'acme-verification',
      '--secret',
      SECRET,
    ]);
    assert.equal(chosen.code, 0, chosen.stdout);
    const fromEnv = await runInProcess(
      ['verify', '--data', body, '--header', `Acme-Verification: ${token}`, '--secret', SECRET],
      {
        env: { LEDGERHOOK_HEADER_NAME: 'Acme-Verification' },
      },
    );
    assert.equal(fromEnv.code, 0, fromEnv.stdout);
  });
});

describe('verify --delivery re-checks the captured facts', () => {
  it('refuses a duplicated verification header, as listen did', async () => {
    const body = bodyOf('dlv_dup');
    const token = signed(body);
    const capture = writeCapture([
      { id: 'dlv_dup', valid: false, code: 'malformed_token', body, token: [token, token] },
    ]);
    const result = await runInProcess(['verify', '--delivery', capture, '--secret', SECRET, '--at-receipt', '--json']);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(JSON.parse(result.stdout).code, 'malformed_token');
  });

  it('labels a verdict that rests on the captured receipt time "as recorded"', async () => {
    const body = bodyOf('dlv_ok');
    const capture = writeCapture([{ id: 'dlv_ok', valid: true, body, token: signed(body) }]);
    const json = await runInProcess([
      'verify',
      '--delivery',
      `${capture}#dlv_ok`,
      '--secret',
      SECRET,
      '--at-receipt',
      '--json',
    ]);
    assert.equal(json.code, 0, json.stdout);
    const report = JSON.parse(json.stdout);
    assert.deepEqual(report.asRecorded, ['receivedAt']);
    assert.equal(report.capturedVerdict, 'valid');
    assert.match(report.checks.find((c: { name: string }) => c.name === 'freshness').detail, /as recorded/);
    const human = await runInProcess(['verify', '--delivery', capture, '--secret', SECRET, '--at-receipt']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /authentic webhook \(as recorded\)/);
    const now = await runInProcess(['verify', '--delivery', capture, '--secret', SECRET, '--json']);
    assert.equal(now.code, 1, 'without --at-receipt the capture is judged now: expired');
    assert.deepEqual(JSON.parse(now.stdout).asRecorded, []);
  });
});

describe('future iat', () => {
  it('verify refuses a token issued beyond the tolerance in the future, unless --allow-future-iat', async () => {
    const body = '{"a":1}';
    const token = signed(body, SECRET, 1_700_000_000);
    const verifyAt = (...extra: string[]) =>
      runInProcess(['verify', '--data', body, '--token', token, '--secret', SECRET, '--now', '1699999000', ...extra]);
    const refused = await verifyAt('--json');
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(refused.stdout).code, 'issued_in_future');
    const allowed = await verifyAt('--allow-future-iat');
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.match(allowed.stdout, /warning:.*future/);
  });
});

describe('replay selectors and wording', () => {
  it('checks --type and --event against the catalogue with a suggestion, and counts in the singular', async () => {
    const capture = mixedCapture();
    for (const [flag, value, suggestion] of [
      ['--type', 'ENTITY_UPDAT', 'ENTITY_UPDATE'],
      ['--event', 'INVOICE_VEIWED', 'INVOICE_VIEWED'],
    ] as const) {
      const result = await runInProcess(['replay', capture, '--to', '1', '--secret', SECRET, flag, value]);
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.match(result.stderr, new RegExp(`did you mean ${suggestion}\\?`));
    }
    const receiver = await startSpecReceiver({ secret: SECRET });
    const one = await replayInProcess(capture, receiver.url, ['--secret', SECRET, '--id', 'dlv_valid']);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /replayed 1 of 3 deliveries captured .*: 1 answered 2xx/);
    const skippedOne = await replayInProcess(capture, receiver.url, [
      '--secret',
      SECRET,
      '--last',
      '2',
      '--include-unverified',
    ]);
    assert.match(skippedOne.stderr, /skipped 1 delivery not verified/);
  });
});
