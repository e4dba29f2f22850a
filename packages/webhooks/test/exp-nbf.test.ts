import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyWebhook } from '../src/webhook/verify.js';
import { bodyHash, makeToken } from './independent-jwt.js';

const SECRET = 'whsec_exp_nbf';
const BODY = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
const NOW = 1_795_000_000;

/** A token from the independent encoder (not ledgerhook's signer), with extra claims. */
const token = (extra: Record<string, unknown>) =>
  makeToken({ claims: { iat: NOW - 10, request_body_sha256: bodyHash(BODY), ...extra }, secret: SECRET });
const verify = (extra: Record<string, unknown>) =>
  verifyWebhook({ body: BODY, token: token(extra), secrets: SECRET, now: () => NOW * 1000 });

describe('exp and nbf, when present, are honoured (RFC 7519)', () => {
  it('absent: nothing changes', async () => {
    assert.equal((await verify({})).ok, true);
  });
  it('a token past its exp is refused as expired, even inside the iat tolerance', async () => {
    const result = await verify({ exp: NOW - 1 });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.code, 'expired');
    assert.match(!result.ok ? result.message : '', /exp claim/);
    assert.equal((await verify({ exp: NOW + 60 })).ok, true);
  });
  it('a token before its nbf is refused as issued_in_future', async () => {
    const result = await verify({ nbf: NOW + 30 });
    assert.equal(!result.ok && result.code, 'issued_in_future');
    assert.equal((await verify({ nbf: NOW - 30 })).ok, true);
  });
  it('an exp that is not a number is invalid claims', async () => {
    const result = await verify({ exp: 'tomorrow' });
    assert.equal(!result.ok && result.code, 'invalid_claims');
  });
});
