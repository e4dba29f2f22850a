import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { shellQuote } from '../../src/util/shell-quote.js';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/**
 * A capture file is input like any other: it never chooses where a re-signed delivery goes, and
 * nothing in it is re-signed unless its ORIGINAL token verifies with the secret now. The hostile
 * files are written here from first principles (no ledgerhook code); both receivers are independent
 * spec 5.2 receivers on loopback: the attacker's (named in the file) and the user's own.
 */
const SECRET = 'whsec_replay_trust_0001';
const RECEIVED_AT = 1_700_000_000;
const PAID = JSON.stringify({
  userId: 'user_1',
  type: 'LIFECYCLE_EVENT',
  event: 'INVOICE_PAID',
  eventData: { invoiceId: 'inv_1', amount: 1_000_000 },
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
async function receiver() {
  const started = await startSpecReceiver({ secret: SECRET, skipExpiry: true });
  closers.push(started.close);
  return started;
}

const token = (body: string, secret: string, iat = RECEIVED_AT) =>
  makeToken({ claims: { iat, request_body_sha256: bodyHash(body) }, secret });

/** The repro: "verified" by the file, a body of the attacker's, their route, one failed attempt. */
function hostileCapture(attackerUrl: string, headerValue: string | undefined): string {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (headerValue !== undefined) headers['service-verification'] = headerValue;
  const delivery = {
    id: 'dlv_paid',
    receivedAt: new Date(RECEIVED_AT * 1000).toISOString(),
    method: 'POST',
    path: '/',
    headers,
    headerName: 'service-verification',
    body: Buffer.from(PAID).toString('base64'),
    bodyBytes: Buffer.byteLength(PAID),
    verdict: { valid: true, status: 202 },
    type: 'LIFECYCLE_EVENT',
    event: 'INVOICE_PAID',
    userId: 'user_1',
    forwarding: [{ route: 'default', url: attackerUrl }],
  };
  const attempt = {
    kind: 'attempt',
    deliveryId: 'dlv_paid',
    route: 'default',
    url: attackerUrl,
    attempt: 1,
    at: new Date((RECEIVED_AT + 1) * 1000).toISOString(),
    status: 500,
    outcome: 'failed',
  };
  const file = join(tempDir(), 'for-debugging.jsonl');
  writeFileSync(file, `${JSON.stringify(delivery)}\n${JSON.stringify(attempt)}\n`);
  return file;
}

const env = { LEDGERHOOK_WEBHOOK_SECRET: SECRET };

describe('replay trusts no capture file (end to end)', () => {
  for (const [variant, headerValue] of [
    ['a token signed with another secret', token(PAID, 'the-attackers-secret')],
    ['no token at all', undefined],
    ['a genuine token over another body', token('{"userId":"user_1","type":"ENTITY_UPDATE","entities":[]}', SECRET)],
  ] as const)
    it(`sends nothing for the issue's repro (${variant}): --failed needs --to, and the token must verify`, async () => {
      const attacker = await receiver();
      const mine = await receiver();
      const file = hostileCapture(attacker.url, headerValue);

      const failed = await runInProcess(['replay', file, '--failed'], { env });
      assert.equal(failed.code, 2, failed.stderr);
      assertOneLineError(failed);
      assert.match(failed.stderr, /replay --failed needs --to TARGET: a capture file never chooses where/);
      assert.ok(failed.stderr.includes(attacker.url), 'the file’s URL is shown for the person to judge');

      for (const args of [['--failed'], [], ['--dry-run']]) {
        const resigned = await runInProcess(['replay', file, '--to', mine.url, ...args], { env });
        assert.equal(resigned.code, 1, `${args}: ${resigned.stderr}`);
        assertOneLineError(resigned);
        assert.match(
          resigned.stderr,
          /nothing was sent: delivery dlv_paid would be re-signed, but its original token does not verify with the secret now \((missing_token|bad_signature|body_mismatch)/,
        );
      }
      const json = await runInProcess(['replay', file, '--to', mine.url, '--json'], { env });
      assert.equal(json.code, 1);
      assert.equal(JSON.parse(json.stdout).error.reason, 'original_token_not_verified');
      assert.equal(attacker.received.length, 0);
      assert.equal(mine.received.length, 0);
    });

  it('replay --edit refuses before the editor opens; the inspector offers no re-signing and refuses it', async () => {
    const mine = await receiver();
    const file = hostileCapture('http://127.0.0.1:9/attacker', token(PAID, 'the-attackers-secret'));
    const dir = tempDir();
    const marker = join(dir, 'editor-ran');
    const editor = join(dir, 'editor.mjs');
    writeFileSync(editor, `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x');`);
    const edited = await runInProcess(['replay', file, '--to', mine.url, '--edit'], {
      env: { ...env, EDITOR: `${shellQuote(process.execPath)} ${shellQuote(editor)}`, VISUAL: undefined },
    });
    assert.equal(edited.code, 1, edited.stderr);
    assertOneLineError(edited);
    assert.match(edited.stderr, /original token does not verify/);
    assert.equal(existsSync(marker), false, 'the editor never opened');

    const inspect = startCli(['inspect', file, '--port', '0', '--json', '--secret', SECRET, '--to', mine.url]);
    try {
      const { inspectorUrl } = await inspect.waitFor((line) => line?.kind === 'inspecting');
      const base = new URL(inspectorUrl);
      const detail = JSON.parse((await call(new URL('api/deliveries/dlv_paid', base))).body);
      assert.deepEqual(detail.replayModes, ['as-captured']);
      assert.equal(detail.edit.allowed, false);
      assert.match(detail.edit.why, /original token does not verify/);
      const post = (action: string, body: unknown) =>
        call(new URL(`api/deliveries/dlv_paid/${action}`, base), {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base.origin },
          body: JSON.stringify(body),
        });
      const replayed = await post('replay', { mode: 'resigned' });
      assert.equal(replayed.status, 400);
      assert.match(JSON.parse(replayed.body).error, /original token does not verify/);
      const edit = await post('edit', { body: PAID });
      assert.equal(edit.status, 400);
      const curl = JSON.parse((await call(new URL('api/deliveries/dlv_paid/curl', base))).body).command as string;
      assert.doesNotMatch(curl, /ledgerhook sign/, 'copy as curl keeps the original token');
    } finally {
      await inspect.stop();
    }
    assert.equal(mine.received.length, 0);
  });

  it('re-signs a genuine delivery however old, and one refused at receipt whose token verifies now (freshness aside)', async () => {
    const mine = await receiver();
    const body = PAID;
    const line = (id: string, verdict: Record<string, unknown>) =>
      JSON.stringify({
        id,
        receivedAt: new Date(RECEIVED_AT * 1000).toISOString(),
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'service-verification': token(body, SECRET) },
        headerName: 'service-verification',
        body: Buffer.from(body).toString('base64'),
        bodyBytes: Buffer.byteLength(body),
        verdict,
      });
    const file = join(tempDir(), 'genuine.jsonl');
    writeFileSync(
      file,
      `${line('dlv_old', { valid: true, status: 200 })}\n${line('dlv_late', { valid: false, code: 'expired', status: 400 })}\n`,
    );
    // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
    const replayed = await runCli(
      ['replay', file, '--to', mine.url, '--include-refused', '--resign-refused', '--json'],
      { env },
    );
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.deepEqual(
      JSON.parse(replayed.stdout).results.map((r: { id: string; mode: string; status: number }) => [
        r.id,
        r.mode,
        r.status,
      ]),
      [
        ['dlv_old', 're-signed', 200],
        ['dlv_late', 're-signed', 200],
      ],
    );
    assert.deepEqual(
      mine.received.map((r) => r.status),
      [200, 200],
    );
  });
});

/** A raw request to the inspector (Origin set as the page sets it). */
function call(
  url: URL,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
