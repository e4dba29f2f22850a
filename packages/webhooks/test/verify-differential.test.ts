/**
 * verifyWebhook against a verifier written here, straight from RFC 7515/7519 and spec 5.2 with
 * node:crypto (canonical Base64url proven by re-encoding, the HMAC compared as text, one rule after
 * another), on 20,000 seeded deliveries that break the rules one or several at a time, and on the
 * boundary cases named below. Both must give the same verdict code, and for an accepted delivery the
 * same secret, age, claims, warnings and body hash, on the answer path (diagnose: false) too.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyWebhook, type VerifyFailureCode, type VerifyResult } from '../src/webhook/verify.js';
import { bodyHash, makeToken } from './independent-jwt.js';
import { BODY, IAT, type MutatedDelivery, mutatedDeliveries, SECRET } from './token-mutations.js';

type Verdict =
  | { ok: true; secretIndex: number; ageSeconds: number; claims: Record<string, unknown>; warning: boolean }
  | { ok: false; code: VerifyFailureCode };

const refused = (code: VerifyFailureCode): Verdict => ({ ok: false, code });
const object = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
/** RFC 7515 2: base64url without padding; one spelling per byte string (re-encoding gives it back). */
const canonical = (segment: string) =>
  /^[A-Za-z0-9_-]*$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
const decoded = (segment: string): unknown => {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
};
const numericDate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function independentVerdict(d: MutatedDelivery): Verdict {
  if ((d.token ?? '').trim() === '') return refused('missing_token');
  let value = d.token ?? '';
  // The header carries the bare JWT (spec 5.2) unless a prefix is configured, which is then required.
  if (d.verificationPrefix) {
    value = value.trim();
    const wanted = d.verificationPrefix.trimStart();
    if (value.slice(0, wanted.length).toLowerCase() !== wanted.toLowerCase()) return refused('malformed_token');
    value = value.slice(wanted.length);
  } else if (/^\s*[A-Za-z][A-Za-z0-9_-]{0,30}[ \t]+[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\./.test(value)) {
    return refused('malformed_token');
  }
  const jwt = value.trim();
  if (jwt.length > 16 * 1024 || /^bearer\s/i.test(jwt)) return refused('malformed_token');
  const parts = jwt.split('.');
  if (parts.length !== 3) return refused('malformed_token');
  const [h = '', p = '', s = ''] = parts;
  if (!canonical(h) || !canonical(p) || !canonical(s)) return refused('malformed_token');
  const header = decoded(h);
  const claims = decoded(p);
  if (!object(header) || !object(claims)) return refused('malformed_token');
  // RFC 7515 4.1.11: a crit this recipient does not understand (all of them) is refused.
  if (header.crit !== undefined) return refused('malformed_token');
  if (header.alg !== 'HS256') return refused('algorithm_not_allowed');
  const secretIndex = d.secrets.findIndex((entry) => {
    const secret = typeof entry === 'string' ? entry : entry.secret;
    return secret !== '' && createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url') === s;
  });
  if (secretIndex < 0) return refused('bad_signature');
  const { iat, exp, nbf, request_body_sha256: hash } = claims;
  if (!numericDate(iat) || typeof hash !== 'string') return refused('invalid_claims');
  if ((exp !== undefined && !numericDate(exp)) || (nbf !== undefined && !numericDate(nbf)))
    return refused('invalid_claims');
  const age = d.nowSeconds - iat;
  let warning = false;
  if (!d.ignoreExpiry && age >= d.toleranceSeconds) return refused('expired');
  if (!d.ignoreExpiry && -age > d.toleranceSeconds) {
    if (!d.allowFutureIat) return refused('issued_in_future');
    warning = true;
  }
  if (numericDate(exp) && !d.ignoreExpiry && d.nowSeconds >= exp) return refused('expired');
  if (numericDate(nbf) && d.nowSeconds < nbf) return refused('issued_in_future');
  if (createHash('sha256').update(d.body).digest('base64') !== hash) return refused('body_mismatch');
  return { ok: true, secretIndex, ageSeconds: age, claims, warning };
}

function assertSameVerdict(d: MutatedDelivery, result: VerifyResult, diagnose: boolean): void {
  const expected = independentVerdict(d);
  const context = `${d.recipe.join(' ')} token=${JSON.stringify(d.token)}: ${JSON.stringify(result)}`;
  if (!expected.ok) {
    assert.equal(result.ok ? 'ok' : result.code, expected.code, context);
    assert.ok(!result.ok && result.message !== '' && !result.message.includes('\n'), context);
    assert.ok(!result.ok && result.checks.some((check) => check.status === 'fail'), context);
    return;
  }
  assert.ok(result.ok, context);
  assert.equal(result.secretIndex, expected.secretIndex, context);
  assert.equal(result.ageSeconds, expected.ageSeconds, context);
  assert.deepEqual(result.claims, expected.claims, context);
  assert.equal(result.warnings.length, expected.warning ? 1 : 0, context);
  assert.equal(result.bodySha256, bodyHash(d.body), context);
  assert.equal(result.checks.length, diagnose ? 6 : 0, context);
}

const verify = (d: MutatedDelivery, diagnose: boolean) =>
  verifyWebhook({
    body: d.body,
    token: d.token,
    secrets: d.secrets,
    now: () => d.nowSeconds * 1000 + 999,
    toleranceSeconds: d.toleranceSeconds,
    ignoreExpiry: d.ignoreExpiry,
    allowFutureIat: d.allowFutureIat,
    verificationPrefix: d.verificationPrefix,
    diagnose,
  });

/** Seeded deliveries: the same first ones in both tiers; the soak tier goes on to 20,000. */
const DELIVERIES = 20_000;

describe('verifyWebhook agrees with an independent verifier', () => {
  it(`on ${DELIVERIES.toLocaleString('en')} mutated deliveries, every verdict code reached`, async () => {
    const seen = new Map<string, number>();
    for (const [index, delivery] of mutatedDeliveries(DELIVERIES, 33).entries()) {
      const diagnose = index % 2 === 0;
      const result = await verify(delivery, diagnose);
      assertSameVerdict(delivery, result, diagnose);
      const code = result.ok ? 'ok' : result.code;
      seen.set(code, (seen.get(code) ?? 0) + 1);
    }
    // At least one in 200 of them each (100 of 20,000).
    for (const code of [
      'ok',
      'missing_token',
      'malformed_token',
      'algorithm_not_allowed',
      'bad_signature',
      'invalid_claims',
      'expired',
      'issued_in_future',
      'body_mismatch',
    ])
      assert.ok((seen.get(code) ?? 0) >= DELIVERIES / 200, `${code}: ${JSON.stringify(Object.fromEntries(seen))}`);
  });

  const HASH = bodyHash(BODY);
  const GOOD = makeToken({ claims: { iat: IAT, request_body_sha256: HASH }, secret: SECRET });
  const [H = '', P = '', S = ''] = GOOD.split('.');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  /** Another spelling of a segment's last character that decodes to the same bytes. */
  const respell = (segment: string) => {
    const spare = segment.length % 4 === 2 ? 15 : 3;
    const index = alphabet.indexOf(segment.at(-1) ?? '');
    return `${segment.slice(0, -1)}${alphabet[(index & ~spare) | (((index & spare) + 1) & spare)]}`;
  };
  const signed = (claims: Record<string, unknown>, header?: Record<string, unknown>) =>
    makeToken({
      claims: { iat: IAT, request_body_sha256: HASH, ...claims },
      secret: SECRET,
      ...(header && { header }),
    });
  const base: MutatedDelivery = {
    token: GOOD,
    body: BODY,
    secrets: [SECRET],
    nowSeconds: IAT,
    toleranceSeconds: 300,
    ignoreExpiry: false,
    allowFutureIat: false,
    recipe: [],
  };
  const cases: Array<[string, Partial<MutatedDelivery>]> = [
    ['valid', {}],
    ['one second inside the tolerance', { nowSeconds: IAT + 299 }],
    ['expired at the tolerance', { nowSeconds: IAT + 300 }],
    ['iat ahead within the tolerance', { nowSeconds: IAT - 300 }],
    ['iat ahead beyond the tolerance', { nowSeconds: IAT - 301 }],
    ['iat ahead beyond the tolerance, allowed (a warning)', { nowSeconds: IAT - 301, allowFutureIat: true }],
    ['old, expiry ignored', { nowSeconds: IAT + 99_999, ignoreExpiry: true }],
    ['an empty secret before the right one', { secrets: ['', SECRET] }],
    ['non-canonical signature', { token: `${H}.${P}.${respell(S)}` }],
    ['non-canonical payload', { token: `${H}.${respell(P)}.${S}` }],
    ['non-canonical header', { token: `${respell(H)}.${P}.${S}` }],
    ['padded payload', { token: `${H}.${P}==.${S}` }],
    ['surrounding blanks', { token: ` ${GOOD}\n` }],
    ['a trailing newline only', { token: `${GOOD}\n` }],
    ['Bearer prefix, none configured', { token: `Bearer ${GOOD}` }],
    ['Bearer prefix, configured', { token: `Bearer ${GOOD}`, verificationPrefix: 'Bearer ' }],
    ['signature cut short', { token: GOOD.slice(0, -1) }],
    ['crit', { token: signed({}, { alg: 'HS256', crit: ['b64'] }) }],
    ['header with an object', { token: signed({}, { alg: 'HS256', x: { y: 1 } }) }],
    ['exp passed', { token: signed({ exp: IAT + 10 }), nowSeconds: IAT + 10 }],
    ['exp passed, expiry ignored', { token: signed({ exp: IAT + 10 }), nowSeconds: IAT + 10, ignoreExpiry: true }],
    ['nbf ahead', { token: signed({ nbf: IAT + 1 }) }],
    ['exp not a number', { token: signed({ exp: 'soon' }) }],
    ['hash unpadded', { token: signed({ request_body_sha256: HASH.replace(/=$/, '') }) }],
    ['claims an array', { token: makeToken({ claims: [IAT] as unknown as Record<string, unknown>, secret: SECRET }) }],
  ];
  for (const [name, overrides] of cases)
    it(`${name}: the same verdict`, async () => {
      const delivery = { ...base, ...overrides, recipe: [name] };
      for (const diagnose of [true, false]) assertSameVerdict(delivery, await verify(delivery, diagnose), diagnose);
    });

  it("a caller changing one result's header or claims changes no later verdict", async () => {
    const first = await verify(base, false);
    assert.ok(first.ok);
    first.header.alg = 'none';
    first.claims.iat = 0;
    const second = await verify(base, false);
    assert.ok(second.ok, JSON.stringify(second));
    assert.deepEqual(second.header, { alg: 'HS256', typ: 'JWT' });
  });
});
