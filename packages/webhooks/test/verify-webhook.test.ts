import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT, jwtVerify } from 'jose';
import {
  decodeWebhookToken,
  signWebhook,
  verifyWebhook,
  verifyWebhookRequest,
  type VerifyFailureCode,
} from '@ledgerhook/webhooks';
import { bodyHash, independentVerify, makeToken } from './independent-jwt.js';

const SECRET = 'whsec_ledgerhook_test_vector_0001';
const BODY = '{"userId":"user-1","type":"ENTITY_UPDATE","entities":["expense","invoice"]}';
const IAT = 1_700_000_000;
/** Computed once with Python's hmac/hashlib, committed so that a change in encoding is caught. */
const VECTOR_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3MDAwMDAwMDAsInJlcXVlc3RfYm9keV9zaGEyNTYiOiJKVnhoTUtsWmx3dlJ5UjVPREVCeEFaYkQ2VHBzTVMxYi9hVGNVdmM2NHc4PSJ9.oQRwcylcD9Qssfq8JfMB6HSHXY3hLR5-RTrleBi1N0s';
const VECTOR_HASH = 'JVxhMKlZlwvRyR5ODEBxAZbD6TpsMS1b/aTcUvc64w8=';
const at = (seconds: number) => () => seconds * 1000;

describe('signWebhook', () => {
  it('reproduces the committed vector byte for byte', async () => {
    assert.equal(await signWebhook(BODY, SECRET, { iat: IAT }), VECTOR_TOKEN);
  });

  it('hashes strings, Buffers and Uint8Arrays as the same bytes', async () => {
    const fromString = await signWebhook(BODY, SECRET, { iat: IAT });
    assert.equal(await signWebhook(Buffer.from(BODY), SECRET, { iat: IAT }), fromString);
    assert.equal(await signWebhook(new TextEncoder().encode(BODY), SECRET, { iat: IAT }), fromString);
  });

  it('uses standard padded Base64 for request_body_sha256 and the clock for iat', async () => {
    const token = await signWebhook(BODY, SECRET, { now: () => 1_234_567_890_999 });
    const { claims, header } = decodeWebhookToken(token);
    assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
    assert.equal(claims.iat, 1_234_567_890);
    assert.equal(claims.request_body_sha256, VECTOR_HASH);
  });

  it('produces tokens an independent implementation and jose accept', async () => {
    const token = await signWebhook(BODY, SECRET, { iat: IAT });
    assert.deepEqual(independentVerify(token, SECRET), { iat: IAT, request_body_sha256: bodyHash(BODY) });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      currentDate: new Date(IAT * 1000),
    });
    assert.equal(payload.request_body_sha256, VECTOR_HASH);
  });

  it('refuses an empty secret with a usage error', async () => {
    await assert.rejects(signWebhook(BODY, ''), { code: 'ERR_USAGE' });
  });

  it('signs a binary and an empty body', async () => {
    const binary = Buffer.from([0, 255, 1, 254, 10]);
    const token = await signWebhook(binary, SECRET, { iat: IAT });
    assert.equal((await verifyWebhook({ body: binary, token, secrets: SECRET, now: at(IAT) })).ok, true);
    const empty = await signWebhook('', SECRET, { iat: IAT });
    assert.equal(decodeWebhookToken(empty).claims.request_body_sha256, '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});

describe('verifyWebhook accepts', () => {
  it('the committed vector', async () => {
    const result = await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, now: at(IAT + 10) });
    assert.equal(result.ok, true);
    assert.ok(result.ok && result.ageSeconds === 10 && result.secretIndex === 0);
  });

  it('a token made by jose directly', async () => {
    const token = await new SignJWT({ request_body_sha256: bodyHash(BODY) })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(IAT)
      .sign(new TextEncoder().encode(SECRET));
    assert.equal((await verifyWebhook({ body: BODY, token, secrets: [SECRET], now: at(IAT) })).ok, true);
  });

  it('a token made by an independent implementation, with extra claims', async () => {
    const token = makeToken({ claims: { iat: IAT, request_body_sha256: bodyHash(BODY), jti: 'x' }, secret: SECRET });
    assert.equal((await verifyWebhook({ body: BODY, token, secrets: SECRET, now: at(IAT) })).ok, true);
  });

  it('with the second of several secrets, and says which one', async () => {
    const token = await signWebhook(BODY, 'production-secret', { iat: IAT });
    const result = await verifyWebhook({
      body: BODY,
      token,
      secrets: [
        { secret: 'sandbox-secret', label: 'sandbox' },
        { secret: 'production-secret', label: 'production' },
      ],
      now: at(IAT),
    });
    assert.ok(result.ok);
    assert.equal(result.secretIndex, 1);
    assert.equal(result.secretLabel, 'production');
  });

  it('one second inside the tolerance (the boundary)', async () => {
    const result = await verifyWebhook({
      body: BODY,
      token: VECTOR_TOKEN,
      secrets: SECRET,
      now: at(IAT + 299),
      toleranceSeconds: 300,
    });
    assert.equal(result.ok, true);
  });

  it('an iat in the future within the tolerance; beyond it refused (issued_in_future) unless allowFutureIat', async () => {
    assert.equal(
      (await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, now: at(IAT - 300) })).ok,
      true,
    );
    const refused = await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, now: at(IAT - 301) });
    assert.ok(!refused.ok && refused.code === 'issued_in_future', JSON.stringify(refused));
    const allowed = await verifyWebhook({
      body: BODY,
      token: VECTOR_TOKEN,
      secrets: SECRET,
      now: at(IAT - 301),
      allowFutureIat: true,
    });
    assert.ok(allowed.ok && allowed.warnings.length === 1 && /future/.test(allowed.warnings[0] ?? ''));
  });

  it('a far-future token never becomes valid: refused a year ahead too', async () => {
    const token = await signWebhook(BODY, SECRET, { iat: IAT + 365 * 86_400 });
    const result = await verifyWebhook({ body: BODY, token, secrets: SECRET, now: at(IAT) });
    assert.ok(!result.ok && result.code === 'issued_in_future');
  });

  it('an old token when expiry is ignored', async () => {
    const result = await verifyWebhook({
      body: BODY,
      token: VECTOR_TOKEN,
      secrets: SECRET,
      now: at(IAT + 10_000),
      ignoreExpiry: true,
    });
    assert.equal(result.ok, true);
  });
});

const valid = { iat: IAT, request_body_sha256: bodyHash(BODY) };
const failures: Array<{
  name: string;
  token: () => string | undefined;
  code: VerifyFailureCode;
  body?: string;
  now?: number;
  tolerance?: number;
}> = [
  { name: 'no token', token: () => undefined, code: 'missing_token' },
  { name: 'an empty token', token: () => '   ', code: 'missing_token' },
  { name: 'a token with 2 segments', token: () => 'eyJhbGciOiJIUzI1NiJ9.eyJpYXQiOjF9', code: 'malformed_token' },
  { name: 'a token with 4 segments', token: () => `${VECTOR_TOKEN}.extra`, code: 'malformed_token' },
  {
    name: 'a header that is not JSON',
    token: () => `${Buffer.from('not json').toString('base64url')}.e30.sig`,
    code: 'malformed_token',
  },
  {
    name: 'claims that are not JSON',
    token: () =>
      `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('nope').toString('base64url')}.sig`,
    code: 'malformed_token',
  },
  {
    name: 'claims that are a JSON array',
    token: () =>
      `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('[1]').toString('base64url')}.sig`,
    code: 'malformed_token',
  },
  { name: 'a 1 MB token', token: () => `${'a'.repeat(1024 * 1024)}.b.c`, code: 'malformed_token' },
  { name: '"Bearer " in front of the token', token: () => `Bearer ${VECTOR_TOKEN}`, code: 'malformed_token' },
  { name: 'alg none', token: () => makeToken({ alg: 'none', claims: valid }), code: 'algorithm_not_allowed' },
  {
    name: 'HS384 with the right secret',
    token: () => makeToken({ alg: 'HS384', claims: valid, secret: SECRET }),
    code: 'algorithm_not_allowed',
  },
  {
    name: 'HS512 with the right secret',
    token: () => makeToken({ alg: 'HS512', claims: valid, secret: SECRET }),
    code: 'algorithm_not_allowed',
  },
  { name: 'RS256', token: () => makeToken({ alg: 'RS256', claims: valid }), code: 'algorithm_not_allowed' },
  { name: 'ES256', token: () => makeToken({ alg: 'ES256', claims: valid }), code: 'algorithm_not_allowed' },
  {
    name: 'an alg header that is not a string',
    token: () => makeToken({ header: { alg: ['HS256'] }, claims: valid, secret: SECRET, alg: 'HS256' }),
    code: 'algorithm_not_allowed',
  },
  {
    name: 'HS256 with the wrong secret',
    token: () => makeToken({ claims: valid, secret: 'wrong' }),
    code: 'bad_signature',
  },
  {
    name: 'HS256 with an empty signature',
    token: () => makeToken({ claims: valid, secret: SECRET }).replace(/\.[^.]*$/, '.'),
    code: 'bad_signature',
  },
  {
    name: 'a signature of another token',
    token: () =>
      `${makeToken({ claims: { ...valid, iat: IAT + 1 }, secret: SECRET })
        .split('.')
        .slice(0, 2)
        .join('.')}.${VECTOR_TOKEN.split('.')[2]}`,
    code: 'bad_signature',
  },
  {
    name: 'iat as a string',
    token: () => makeToken({ claims: { ...valid, iat: String(IAT) }, secret: SECRET }),
    code: 'invalid_claims',
  },
  {
    name: 'no iat',
    token: () => makeToken({ claims: { request_body_sha256: valid.request_body_sha256 }, secret: SECRET }),
    code: 'invalid_claims',
  },
  { name: 'no hash claim', token: () => makeToken({ claims: { iat: IAT }, secret: SECRET }), code: 'invalid_claims' },
  {
    name: 'a hash claim that is a number',
    token: () => makeToken({ claims: { iat: IAT, request_body_sha256: 5 }, secret: SECRET }),
    code: 'invalid_claims',
  },
  {
    name: 'now - iat equal to the tolerance (the boundary)',
    token: () => VECTOR_TOKEN,
    now: IAT + 300,
    code: 'expired',
  },
  {
    name: 'now - iat past a custom tolerance',
    token: () => VECTOR_TOKEN,
    now: IAT + 11,
    tolerance: 10,
    code: 'expired',
  },
  {
    name: 'a body changed by one byte',
    token: () => VECTOR_TOKEN,
    body: BODY.replace('user-1', 'user-2'),
    code: 'body_mismatch',
  },
  { name: 'an empty body', token: () => VECTOR_TOKEN, body: '', code: 'body_mismatch' },
  {
    name: 'a hex hash claim',
    token: () =>
      makeToken({
        claims: {
          iat: IAT,
          request_body_sha256: bodyHash(BODY) && Buffer.from(bodyHash(BODY), 'base64').toString('hex'),
        },
        secret: SECRET,
      }),
    code: 'body_mismatch',
  },
];

describe('verifyWebhook rejects', () => {
  for (const failure of failures) {
    it(`${failure.name} with ${failure.code}`, async () => {
      const result = await verifyWebhook({
        body: failure.body ?? BODY,
        token: failure.token(),
        secrets: SECRET,
        now: at(failure.now ?? IAT + 1),
        ...(failure.tolerance !== undefined ? { toleranceSeconds: failure.tolerance } : {}),
      });
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.equal(result.code, failure.code, result.message);
      assert.ok(result.message.length > 0 && !result.message.includes('\n'));
      assert.ok(result.checks.some((check) => check.status === 'fail'));
    });
  }

  it('reports the age of an expired token', async () => {
    const result = await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, now: at(IAT + 4000) });
    assert.ok(!result.ok && result.code === 'expired' && result.ageSeconds === 4000);
    assert.match(result.message, /4000s/);
  });

  it('refuses to run without a secret or with a negative tolerance', async () => {
    await assert.rejects(verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: [] }), { code: 'ERR_USAGE' });
    await assert.rejects(verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, toleranceSeconds: -1 }), {
      code: 'ERR_USAGE',
    });
  });
});

describe('diagnostics', () => {
  const hintsFor = async (body: string, token: string, extra: Partial<Parameters<typeof verifyWebhook>[0]> = {}) => {
    const result = await verifyWebhook({ body, token, secrets: SECRET, now: at(IAT), ...extra });
    assert.ok(!result.ok);
    return result.hints.join('\n');
  };
  const pretty = JSON.stringify(JSON.parse(BODY), null, 2);

  it('spots a trailing newline added after signing', async () => {
    assert.match(await hintsFor(`${BODY}\n`, VECTOR_TOKEN), /trailing newline removed/);
  });
  it('spots a trailing newline lost after signing', async () => {
    const token = await signWebhook(`${BODY}\n`, SECRET, { iat: IAT });
    assert.match(await hintsFor(BODY, token), /trailing newline added/);
  });
  it('spots a body pretty-printed after signing', async () => {
    assert.match(await hintsFor(pretty, VECTOR_TOKEN), /re-serialised compactly/);
  });
  it('spots a body compacted after signing a pretty one', async () => {
    const token = await signWebhook(pretty, SECRET, { iat: IAT });
    assert.match(await hintsFor(BODY, token), /pretty-printed with 2 spaces/);
  });
  it('spots a hex digest instead of Base64', async () => {
    const token = makeToken({
      claims: { iat: IAT, request_body_sha256: Buffer.from(bodyHash(BODY), 'base64').toString('hex') },
      secret: SECRET,
    });
    assert.match(await hintsFor(BODY, token), /hex digest/);
  });
  it('spots a secret with surrounding whitespace', async () => {
    const result = await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: `${SECRET}\n`, now: at(IAT) });
    assert.ok(!result.ok && result.code === 'bad_signature');
    assert.match(result.hints.join(), /surrounding whitespace/);
  });
  it('spots a token of the other environment, loaded lazily', async () => {
    let loaded = 0;
    const result = await verifyWebhook({
      body: BODY,
      token: VECTOR_TOKEN,
      secrets: { secret: 'sandbox', label: 'sandbox' },
      now: at(IAT),
      otherSecrets: async () => {
        loaded += 1;
        return [{ secret: SECRET, label: 'production' }];
      },
    });
    assert.ok(!result.ok && result.code === 'bad_signature');
    assert.match(result.hints.join(), /production secret/);
    assert.equal(loaded, 1);
    const ok = await verifyWebhook({
      body: BODY,
      token: VECTOR_TOKEN,
      secrets: SECRET,
      now: at(IAT),
      otherSecrets: async () => {
        loaded += 1;
        return [];
      },
    });
    assert.ok(ok.ok);
    assert.equal(loaded, 1, 'other secrets are not loaded when the signature verifies');
  });
});

describe('decodeWebhookToken', () => {
  it('decodes without verifying', () => {
    assert.deepEqual(decodeWebhookToken(VECTOR_TOKEN).claims, { iat: IAT, request_body_sha256: VECTOR_HASH });
  });
  it('throws a usage error with the reason for a malformed token', () => {
    assert.throws(() => decodeWebhookToken('abc'), { code: 'ERR_USAGE', message: /1 segment/ });
  });
});

describe('verifyWebhookRequest', () => {
  it('finds the header in any case in a Node headers object', async () => {
    const result = await verifyWebhookRequest({
      headers: { 'service-verification': VECTOR_TOKEN, 'content-type': 'application/json' },
      body: Buffer.from(BODY),
      secrets: SECRET,
      now: at(IAT),
    });
    assert.equal(result.ok, true);
  });
  it('uses a configured header name and a fetch Headers object', async () => {
    const headers = new Headers({ 'Acme-Verification': VECTOR_TOKEN });
    const result = await verifyWebhookRequest({
      headers,
      body: BODY,
      secrets: SECRET,
      now: at(IAT),
      headerName: 'ACME-VERIFICATION',
    });
    assert.equal(result.ok, true);
  });
  it('reports a missing header and refuses a duplicated one', async () => {
    const missing = await verifyWebhookRequest({ headers: {}, body: BODY, secrets: SECRET });
    assert.ok(!missing.ok && missing.code === 'missing_token');
    const twice = await verifyWebhookRequest({
      headers: { 'Service-Verification': [VECTOR_TOKEN, VECTOR_TOKEN] },
      body: BODY,
      secrets: SECRET,
    });
    assert.ok(!twice.ok && twice.code === 'malformed_token');
  });
});

describe('canonical Base64url segments', () => {
  /** The 4 spellings of the signature's last character that decode to the same bytes. */
  const lastCharVariants = (token: string): string[] => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = token.at(-1) ?? '';
    const base = alphabet.indexOf(last) & ~3;
    return [0, 1, 2, 3].map((spare) => `${token.slice(0, -1)}${alphabet[base + spare]}`).filter((t) => t !== token);
  };

  it('refuses the 3 non-canonical spellings of a valid signature as malformed_token', async () => {
    const variants = lastCharVariants(VECTOR_TOKEN);
    assert.equal(variants.length, 3);
    for (const token of variants) {
      assert.deepEqual(
        Buffer.from(token.split('.')[2] ?? '', 'base64url'),
        Buffer.from(VECTOR_TOKEN.split('.')[2] ?? '', 'base64url'),
      );
      const result = await verifyWebhook({ body: BODY, token, secrets: SECRET, now: at(IAT) });
      assert.ok(!result.ok && result.code === 'malformed_token', `${token}: ${JSON.stringify(result)}`);
      assert.match(result.message, /canonical/);
    }
    assert.equal((await verifyWebhook({ body: BODY, token: VECTOR_TOKEN, secrets: SECRET, now: at(IAT) })).ok, true);
  });

  it('refuses non-canonical header and payload segments', async () => {
    const [header = '', payload = '', signature = ''] = VECTOR_TOKEN.split('.');
    for (const [name, token] of [
      ['header', `${lastCharVariants(header)[0]}.${payload}.${signature}`],
      ['payload', `${header}.${lastCharVariants(payload)[0]}.${signature}`],
      ['padded payload', `${header}.${payload}==.${signature}`],
    ] as const) {
      const result = await verifyWebhook({ body: BODY, token, secrets: SECRET, now: at(IAT) });
      assert.ok(!result.ok && result.code === 'malformed_token', `${name}: ${JSON.stringify(result)}`);
    }
  });

  it('refuses a non-canonical token in verifyWebhookRequest too', async () => {
    const [token = ''] = lastCharVariants(VECTOR_TOKEN);
    const result = await verifyWebhookRequest({
      headers: { 'service-verification': token },
      body: BODY,
      secrets: SECRET,
      now: at(IAT),
    });
    assert.ok(!result.ok && result.code === 'malformed_token');
  });

  it('refuses a future iat in verifyWebhookRequest by default', async () => {
    const result = await verifyWebhookRequest({
      headers: { 'service-verification': VECTOR_TOKEN },
      body: BODY,
      secrets: SECRET,
      now: at(IAT - 3600),
    });
    assert.ok(!result.ok && result.code === 'issued_in_future');
  });
});

describe('a body_mismatch says its cause once, in the claim encoding', () => {
  const body = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
  const nowMs = 1_795_000_000_000;
  const tokenFor = (hash: string) =>
    makeToken({ claims: { iat: nowMs / 1000 - 5, request_body_sha256: hash }, secret: SECRET });
  const hex = createHash('sha256').update(body).digest('hex');
  const base64 = createHash('sha256').update(body).digest('base64');

  it('a hex claim: the headline names it, the check shows Base64 then hex beside the claim', async () => {
    const result = await verifyWebhook({ body, token: tokenFor(hex), secrets: SECRET, now: () => nowMs });
    assert.equal(!result.ok && result.code, 'body_mismatch');
    assert.match(!result.ok ? result.message : '', /the claim is a hex digest, not Base64/);
    const integrity = result.checks.find((check) => check.name === 'integrity');
    assert.equal(integrity?.detail, `request_body_sha256 is ${hex}, the body hashes to ${base64} (hex ${hex})`);
  });

  it('a re-serialised body and a changed byte are told apart', async () => {
    const signedHash = createHash('sha256').update(body).digest('base64');
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const reserialised = await verifyWebhook({
      body: pretty,
      token: tokenFor(signedHash),
      secrets: SECRET,
      now: () => nowMs,
    });
    assert.match(!reserialised.ok ? reserialised.message : '', /not the bytes that were signed \(re-serialised\)/);
    const changed = await verifyWebhook({
      body: body.replace('"u"', '"v"'),
      token: tokenFor(signedHash),
      secrets: SECRET,
      now: () => nowMs,
    });
    assert.match(!changed.ok ? changed.message : '', /it was changed after signing/);
  });
});
