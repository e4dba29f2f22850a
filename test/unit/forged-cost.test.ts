import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { describe, it } from 'node:test';
import { captureRecordFrom } from '../../src/capture/capture-from-delivery.js';
import { handleDelivery, type HandleDeliveryOptions } from '../../src/api/listen.js';
import { Webhooks } from '@ledgerhook/webhooks';
import { signWebhook } from '@ledgerhook/webhooks';
import { verifyWebhook } from '@ledgerhook/webhooks';

const SECRET = 'whsec_forged_cost';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const GENUINE = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
// A large body that parses as JSON, so that a re-serialisation would really run if anything tried.
const BIG = Buffer.from(
  JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'], pad: 'x'.repeat(300_000) }),
);

const options = (): HandleDeliveryOptions => ({
  secrets: [SECRET],
  headerName: 'Service-Verification',
  now: () => NOW,
  newId: () => 'dlv_test',
});

/**
 * Counts JSON.parse and JSON.stringify calls on anything larger than a token while `run` runs: the
 * work a flood could multiply. Hashing once is allowed; parsing or re-serialising the body is not.
 */
async function bodyWork(run: () => Promise<unknown>): Promise<number> {
  const { parse, stringify } = JSON;
  let calls = 0;
  JSON.parse = ((text: string, ...rest: []) => {
    if (String(text).length > 10_000) calls += 1;
    return parse(text, ...rest);
  }) as typeof JSON.parse;
  JSON.stringify = ((value: unknown, ...rest: []) => {
    const out = stringify(value, ...rest);
    if (out !== undefined && out.length > 10_000) calls += 1;
    return out;
  }) as typeof JSON.stringify;
  try {
    await run();
  } finally {
    JSON.parse = parse;
    JSON.stringify = stringify;
  }
  return calls;
}

/** Counts SHA-256 digests of anything larger than a token (a body) while `run` runs. */
async function bodyHashes(run: () => Promise<unknown>): Promise<number> {
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const { hash, createHash } = crypto;
  let count = 0;
  const large = (data: unknown) =>
    (typeof data === 'string' || ArrayBuffer.isView(data)) && (data as string).length > 10_000;
  crypto.hash = ((algorithm: string, data: Parameters<typeof hash>[1], ...rest: []) => {
    if (large(data)) count += 1;
    return hash(algorithm, data, ...rest);
  }) as typeof hash;
  crypto.createHash = ((...args: Parameters<typeof createHash>) => {
    const made = createHash(...args);
    const update = made.update.bind(made);
    made.update = ((data: unknown, ...rest: []) => {
      if (large(data)) count += 1;
      return update(data as string, ...rest);
    }) as typeof made.update;
    return made;
  }) as typeof createHash;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    crypto.hash = hash;
    crypto.createHash = createHash;
    syncBuiltinESMExports();
  }
  return count;
}

describe('before its signature verifies, a delivery costs one hash and nothing more', () => {
  it('the listener neither parses nor re-serialises a genuine token over another large body', async () => {
    const token = await signWebhook(GENUINE, SECRET, { now: () => NOW });
    const request = { method: 'POST', path: '/', headers: { 'service-verification': token }, body: BIG };
    let verdict: unknown;
    const calls = await bodyWork(async () => {
      const handled = await handleDelivery(request, options());
      verdict = handled.delivery?.verdict;
      assert.equal(handled.status, 400);
    });
    assert.equal(calls, 0);
    assert.equal((verdict as { code: string }).code, 'body_mismatch');
    assert.equal((verdict as { signatureVerified: boolean }).signatureVerified, true);
  });

  it('a forged signature over a body is not parsed, and the capture keeps only its head with the one hash', async () => {
    const token = await signWebhook(BIG, 'another-secret', { now: () => NOW });
    const request = { method: 'POST', path: '/', headers: { 'service-verification': token }, body: BIG };
    let record: ReturnType<typeof captureRecordFrom> | undefined;
    const calls = await bodyWork(async () => {
      const handled = await handleDelivery(request, options());
      assert.equal(handled.status, 400);
      assert.ok(handled.delivery);
      assert.equal(handled.delivery.parsed.ok, false);
      record = captureRecordFrom(handled.delivery);
    });
    assert.equal(calls, 0);
    assert.equal(record?.bodyTruncated, true);
    assert.equal(typeof record?.bodySha256, 'string');
  });

  it('the receiver SDK answers the same delivery without parsing or re-serialising it', async () => {
    const webhooks = new Webhooks({ secret: SECRET, now: () => NOW });
    const token = await signWebhook(GENUINE, SECRET, { now: () => NOW });
    const calls = await bodyWork(async () => {
      const answer = await webhooks.verifyAndReceive({ headers: { 'service-verification': token }, body: BIG });
      assert.equal(answer.status, 400);
    });
    assert.equal(calls, 0);
  });

  it('explained on demand: a verified signature over a re-serialised small body gets its cause from verifyWebhook', async () => {
    const token = await signWebhook(GENUINE, SECRET, { now: () => NOW });
    const pretty = JSON.stringify(JSON.parse(GENUINE), null, 2);
    const result = await verifyWebhook({ body: pretty, token, secrets: SECRET, now: () => NOW });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.hints.some((hint) => /re-serialised compactly/.test(hint)), JSON.stringify(result));
    const quiet = await verifyWebhook({ body: pretty, token, secrets: SECRET, now: () => NOW, diagnose: false });
    assert.ok(!quiet.ok && quiet.hints.length === 0);
    const forged = await verifyWebhook({
      body: pretty,
      token: await signWebhook(GENUINE, 'x', { now: () => NOW }),
      secrets: SECRET,
      now: () => NOW,
    });
    assert.ok(!forged.ok && !forged.hints.some((hint) => /re-serialised/.test(hint)), 'never for a forgery');
  });

  it('on the answer path a forged delivery costs its HMAC and nothing more: its body is not hashed', async () => {
    const forged = await signWebhook(BIG, 'another-secret', { now: () => NOW });
    const genuine = await signWebhook(BIG, SECRET, { now: () => NOW });
    const verify = (token: string, diagnose?: boolean) =>
      verifyWebhook({ body: BIG, token, secrets: SECRET, now: () => NOW, diagnose });
    let result: Awaited<ReturnType<typeof verify>> | undefined;
    assert.equal(await bodyHashes(async () => (result = await verify(forged, false))), 0);
    assert.ok(result && !result.ok && result.code === 'bad_signature' && result.bodySha256 === undefined);
    assert.equal(result.checks.find((check) => check.name === 'integrity')?.status, 'skip');
    const webhooks = new Webhooks({ secret: SECRET, now: () => NOW });
    const headers = { 'service-verification': forged };
    assert.equal(await bodyHashes(() => webhooks.verifyAndReceive({ headers, body: BIG })), 0, 'the receiver SDK');
    // Once the signature verified, the body is hashed once; the whole picture hashes a forged one too.
    assert.equal(await bodyHashes(() => verify(genuine, false)), 1);
    assert.equal(await bodyHashes(async () => (result = await verify(forged))), 1);
    assert.equal(result?.checks.find((check) => check.name === 'integrity')?.status, 'pass');
  });
});
