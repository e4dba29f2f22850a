import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhooks } from '../src/receiver/webhooks.js';
import { validateVerificationPrefix } from '../src/webhook/verification-prefix.js';
import { verifyWebhook } from '../src/webhook/verify.js';
import { bodyHash, makeToken } from './independent-jwt.js';

const SECRET = 'whsec_prefix';
const BODY = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
const NOW = 1_795_000_000;
const TOKEN = makeToken({ claims: { iat: NOW - 10, request_body_sha256: bodyHash(BODY) }, secret: SECRET });
const verify = (token: string, verificationPrefix?: string) =>
  verifyWebhook({ body: BODY, token, secrets: SECRET, now: () => NOW * 1000, verificationPrefix });

describe('the verification prefix: off by default, a setting when the service sends one', () => {
  it('without the setting, a prefixed value is refused, naming what was seen and the setting', async () => {
    for (const scheme of ['Bearer', 'bearer', 'JWT', 'Token']) {
      const result = await verify(`${scheme} ${TOKEN}`);
      assert.equal(result.ok, false, scheme);
      assert.equal(!result.ok && result.code, 'malformed_token');
      assert.match(!result.ok ? result.message : '', new RegExp(`starts with "${scheme} ".*verificationPrefix`));
      assert.equal(!result.ok && result.prefixSeen, `${scheme} `);
    }
    assert.equal((await verify(TOKEN)).ok, true, 'the bare JWT of spec 5.2');
  });

  it('with the setting, the prefix is required and taken off (any case, as HTTP schemes are)', async () => {
    assert.equal((await verify(`Bearer ${TOKEN}`, 'Bearer ')).ok, true);
    assert.equal((await verify(`bearer ${TOKEN}`, 'Bearer ')).ok, true);
    const bare = await verify(TOKEN, 'Bearer ');
    assert.equal(!bare.ok && bare.code, 'malformed_token');
    assert.match(!bare.ok ? bare.message : '', /does not start with the configured verification prefix "Bearer "/);
    const forged = await verify(`Bearer ${TOKEN.slice(0, -2)}AA`, 'Bearer ');
    assert.equal(!forged.ok && forged.code, 'bad_signature', 'the prefix changes nothing about the signature');
  });

  it('a bare scheme name gets its space; blank, control characters and long prefixes are refused', () => {
    assert.equal(validateVerificationPrefix('Bearer'), 'Bearer ');
    assert.equal(validateVerificationPrefix('Bearer '), 'Bearer ');
    assert.equal(validateVerificationPrefix('v1='), 'v1=');
    for (const bad of ['', '   ', 'Bearer\r\n', 'x'.repeat(40), 'Béarer'])
      assert.throws(() => validateVerificationPrefix(bad), { code: 'ERR_USAGE' }, JSON.stringify(bad));
  });

  it('the receiver SDK takes the same option', async () => {
    const webhooks = new Webhooks({ secret: SECRET, verificationPrefix: 'Bearer', now: () => NOW * 1000 });
    const answer = await webhooks.verifyAndReceive({
      headers: { 'service-verification': `Bearer ${TOKEN}` },
      body: BODY,
    });
    assert.equal(answer.status, 200);
    const plain = new Webhooks({ secret: SECRET, now: () => NOW * 1000 });
    const refused = await plain.verifyAndReceive({
      headers: { 'service-verification': `Bearer ${TOKEN}` },
      body: BODY,
    });
    assert.equal(refused.status, 400);
    assert.throws(() => new Webhooks({ secret: SECRET, verificationPrefix: '' }), { code: 'ERR_USAGE' });
  });
});
