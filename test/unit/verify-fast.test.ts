/**
 * The accepted delivery's fast route (src/webhook/verify-fast.ts) must give exactly the full checks'
 * answer: for every token below, verifyWebhook (fast route first) equals verifyFully (every check),
 * and the fast route answers alone for the tokens that are accepted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_SECRET_MATCHED, verifyAccepted } from '../../src/webhook/verify-fast.js';
import { verifyFully, verifyWebhook, type VerifyWebhookOptions } from '../../src/webhook/verify.js';
import { normaliseSecrets } from '../../src/webhook/secrets.js';
import { bodyHash, makeToken } from '../helpers/independent-jwt.js';

const SECRET = 'whsec_ledgerhook_test_vector_0001';
const BODY = '{"userId":"user-1","type":"ENTITY_UPDATE","entities":["expense","invoice"]}';
const IAT = 1_700_000_000;
const HASH = bodyHash(BODY);
const at = (seconds: number) => () => seconds * 1000;
const token = (claims: Record<string, unknown>, header?: Record<string, unknown>, secret = SECRET) =>
  makeToken({ claims, secret, ...(header ? { header } : {}) });
const GOOD = token({ iat: IAT, request_body_sha256: HASH });
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The other spellings of a segment's last character that decode to the same bytes. */
const respell = (segment: string, spare: number) => {
  const index = alphabet.indexOf(segment.at(-1) ?? '');
  return `${segment.slice(0, -1)}${alphabet[(index & ~spare) | (((index & spare) + 1) & spare)]}`;
};
const [H = '', P = '', S = ''] = GOOD.split('.');

/** fast: accepted by the fast route; full: accepted, but only by the full checks; false: refused. */
type Case = [name: string, options: Partial<VerifyWebhookOptions>, accepted: 'fast' | 'full' | false];
const CASES: Case[] = [
  ['valid', {}, 'fast'],
  ['valid, Buffer body', { body: Buffer.from(BODY) }, 'fast'],
  ['one second inside the tolerance', { now: at(IAT + 299) }, 'fast'],
  ['expired at the tolerance', { now: at(IAT + 300) }, false],
  ['iat ahead within the tolerance', { now: at(IAT - 300) }, 'fast'],
  ['iat ahead beyond the tolerance', { now: at(IAT - 301) }, false],
  ['iat ahead beyond the tolerance, allowed (a warning)', { now: at(IAT - 301), allowFutureIat: true }, 'fast'],
  ['old, expiry ignored', { now: at(IAT + 99_999), ignoreExpiry: true }, 'fast'],
  ['tolerance 0', { toleranceSeconds: 0 }, false],
  ['wrong secret', { secrets: 'other' }, false],
  [
    'second of labelled secrets',
    {
      secrets: [
        { secret: 'x', label: 'sandbox' },
        { secret: SECRET, label: 'production' },
      ],
    },
    'fast',
  ],
  ['an empty secret before the right one', { secrets: ['', SECRET] }, 'fast'],
  ['body changed', { body: `${BODY}\n` }, false],
  ['non-canonical signature', { token: `${H}.${P}.${respell(S, 3)}` }, false],
  ['non-canonical payload', { token: `${H}.${respell(P, P.length % 4 === 2 ? 15 : 3)}.${S}` }, false],
  ['padded payload', { token: `${H}.${P}==.${S}` }, false],
  ['non-canonical header', { token: `${respell(H, H.length % 4 === 2 ? 15 : 3)}.${P}.${S}` }, false],
  ['Bearer prefix', { token: `Bearer ${GOOD}` }, false],
  ['surrounding blanks', { token: ` ${GOOD}\n` }, 'full'],
  ['four segments', { token: `${GOOD}.x` }, false],
  ['empty', { token: '' }, false],
  ['missing', { token: undefined }, false],
  ['signature cut short', { token: GOOD.slice(0, -1) }, false],
  ['alg none', { token: makeToken({ alg: 'none', claims: { iat: IAT, request_body_sha256: HASH } }) }, false],
  [
    'alg HS512',
    { token: makeToken({ alg: 'HS512', secret: SECRET, claims: { iat: IAT, request_body_sha256: HASH } }) },
    false,
  ],
  ['crit', { token: token({ iat: IAT, request_body_sha256: HASH }, { alg: 'HS256', crit: ['b64'] }) }, false],
  ['header with a kid', { token: token({ iat: IAT, request_body_sha256: HASH }, { alg: 'HS256', kid: 'k1' }) }, 'fast'],
  [
    'header with an object',
    { token: token({ iat: IAT, request_body_sha256: HASH }, { alg: 'HS256', x: { y: 1 } }) },
    'fast',
  ],
  ['exp passed', { token: token({ iat: IAT, exp: IAT + 10, request_body_sha256: HASH }), now: at(IAT + 10) }, false],
  [
    'exp passed, expiry ignored',
    { token: token({ iat: IAT, exp: IAT + 10, request_body_sha256: HASH }), now: at(IAT + 10), ignoreExpiry: true },
    'fast',
  ],
  ['exp ahead', { token: token({ iat: IAT, exp: IAT + 10, request_body_sha256: HASH }), now: at(IAT + 9) }, 'fast'],
  ['nbf ahead', { token: token({ iat: IAT, nbf: IAT + 1, request_body_sha256: HASH }) }, false],
  ['exp not a number', { token: token({ iat: IAT, exp: 'soon', request_body_sha256: HASH }) }, false],
  ['iat a string', { token: token({ iat: String(IAT), request_body_sha256: HASH }) }, false],
  ['hash missing', { token: token({ iat: IAT }) }, false],
  ['hash unpadded', { token: token({ iat: IAT, request_body_sha256: bodyHash(BODY).replace(/=$/, '') }) }, false],
  [
    'claims an array',
    { token: makeToken({ claims: [IAT] as unknown as Record<string, unknown>, secret: SECRET }) },
    false,
  ],
  ['extra unicode claims', { token: token({ iat: IAT, request_body_sha256: HASH, note: 'café ✓' }) }, 'fast'],
];

describe('the fast route of an accepted delivery', () => {
  for (const [name, overrides, accepted] of CASES) {
    it(`${name}: the same result as every check${accepted === 'fast' ? ', from the fast route alone' : ''}`, async () => {
      const options: VerifyWebhookOptions = { body: BODY, token: GOOD, secrets: SECRET, now: at(IAT), ...overrides };
      const full = await verifyFully(options);
      assert.deepEqual(await verifyWebhook(options), full);
      assert.equal(full.ok, accepted !== false);
      const fast = verifyAccepted({
        body: options.body,
        token: options.token,
        secrets: normaliseSecrets(options.secrets),
        toleranceSeconds: options.toleranceSeconds ?? 300,
        nowMs: (options.now ?? Date.now)(),
        ignoreExpiry: options.ignoreExpiry === true,
        allowFutureIat: options.allowFutureIat === true,
      });
      if (accepted === 'fast') assert.deepEqual(fast, full);
      // Otherwise it only ever steps aside, or says that no secret signs these bytes (then the full
      // checks skip those HMACs; their result, compared above, is the same).
      else assert.ok(fast === undefined || fast === NO_SECRET_MATCHED, String(fast));
      if (fast === NO_SECRET_MATCHED) assert.notEqual(full.ok, true);
    });
  }
});
