import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyOf } from './hs256.js';
import { checkFreshness } from './freshness.js';
import { describeSecret, type LabelledSecret } from './secrets.js';
import type { WebhookClaims } from './sign.js';
import { decodeSegment, MAX_TOKEN_LENGTH } from './token-parts.js';
import type { VerifySuccess } from './verify-result.js';
import { bodySha256Base64, type WebhookBody } from './body-hash.js';

/**
 * The accepted delivery's route through verification, measured against raw node:crypto doing the
 * same work (`npm run bench verify-throughput`). It only ever says yes: any doubt (a prefix, an
 * unknown header, a claim out of shape, a stale iat, a body that does not match, no secret matching)
 * returns undefined and verify.ts runs the full checks, which build the explanation. So every
 * security property is the full path's: this route accepts exactly the tokens it would accept, with
 * the same result, and no more.
 *
 * What makes it cheap: each segment is decoded once; canonical Base64url is checked on the characters
 * (the spare bits of the last one) instead of by re-encoding; the service's header segment is one fixed
 * string, compared before anything is parsed; the signature is compared as bytes against the HMAC of a
 * cached KeyObject; and nothing here awaits.
 */

/** A token segment is Base64url only: also refuses whitespace, padding and any prefix. */
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The value of one Base64url character (the caller has checked the alphabet). */
function sextet(code: number): number {
  if (code === 95) return 63; // '_' (95 sits between the capitals and the small letters)
  if (code >= 97) return code - 71; // a-z: 26..51
  if (code >= 65) return code - 65; // A-Z: 0..25
  if (code >= 48) return code + 4; // 0-9: 52..61
  return 62; // '-'
}

/**
 * Canonical unpadded Base64url, for a segment already known to use the alphabet: a length Base64
 * can produce, and the spare low bits of the last character zero (token-parts.ts `nonCanonical`
 * proves the same by re-encoding; both refuse a second spelling of the same bytes).
 */
function canonicalLength(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const spare = rest === 2 ? 15 : 3;
  return (sextet(segment.charCodeAt(segment.length - 1)) & spare) === 0;
}

/**
 * Header segments seen to be valid (a JSON object, alg HS256, no crit), with their decoded value. The
 * service sends one fixed header, so this holds one entry; it is bounded all the same, and only
 * headers whose values are plain scalars are kept (each result gets its own shallow copy).
 */
const goodHeaders = new Map<string, Record<string, unknown>>();

function knownHeader(segment: string): Record<string, unknown> | undefined {
  const cached = goodHeaders.get(segment);
  if (cached !== undefined) return { ...cached };
  const decoded = decodeSegment(segment, 'header');
  if (!decoded.ok) return undefined;
  const header = decoded.value;
  if (header.alg !== 'HS256' || header.crit !== undefined) return undefined;
  if (Object.values(header).every((value) => value === null || typeof value !== 'object')) {
    if (goodHeaders.size >= 4) goodHeaders.clear();
    goodHeaders.set(segment, { ...header });
  }
  return header;
}

/** A finite number, or absent: what claimProblems in verify.ts asks of exp and nbf. */
const numericDate = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isFinite(value));

export interface FastVerifyInput {
  body: WebhookBody;
  token: unknown;
  secrets: readonly LabelledSecret[];
  toleranceSeconds: number;
  nowMs: number;
  ignoreExpiry: boolean;
  allowFutureIat: boolean;
}

/**
 * Said when the token is well formed and its signature matched none of the secrets: the full checks
 * then explain without computing the same HMACs again (before a signature verifies, a delivery
 * costs one hash per secret, not two).
 */
export const NO_SECRET_MATCHED = 'no-secret-matched';

/**
 * The success verify.ts would return for this delivery; NO_SECRET_MATCHED; or undefined to let the
 * full checks decide.
 */
export function verifyAccepted(input: FastVerifyInput): VerifySuccess | typeof NO_SECRET_MATCHED | undefined {
  const { token } = input;
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  const firstDot = token.indexOf('.');
  const lastDot = token.lastIndexOf('.');
  if (firstDot <= 0 || lastDot !== token.indexOf('.', firstDot + 1)) return undefined;
  const payload = token.slice(firstDot + 1, lastDot);
  const signature = token.slice(lastDot + 1);
  // HS256: 32 bytes, 43 characters whose last carries 2 spare bits.
  if (signature.length !== 43 || !SEGMENT.test(signature) || !canonicalLength(signature)) return undefined;
  if (!SEGMENT.test(payload) || !canonicalLength(payload)) return undefined;
  // The header is parsed (and cached) only once the signature matched: nothing unsigned fills the cache.
  const headerSegment = token.slice(0, firstDot);
  if (!SEGMENT.test(headerSegment)) return undefined;

  const given = Buffer.from(signature, 'base64url');
  const signed = token.slice(0, lastDot);
  let secretIndex = -1;
  for (let index = 0; index < input.secrets.length; index += 1) {
    const secret = input.secrets[index]?.secret;
    if (typeof secret !== 'string' || secret.length === 0) continue;
    const expected = createHmac('sha256', keyOf(secret)).update(signed, 'latin1').digest();
    if (timingSafeEqual(expected, given)) {
      secretIndex = index;
      break;
    }
  }
  const matched = input.secrets[secretIndex];
  // Every secret was tried over the same bytes the full checks sign (an empty one is theirs to judge).
  if (matched === undefined)
    return input.secrets.every((entry) => entry.secret.length > 0) ? NO_SECRET_MATCHED : undefined;
  const header = knownHeader(headerSegment);
  if (header === undefined) return undefined;

  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return undefined;
  const { iat, request_body_sha256: claimedHash, exp, nbf } = claims as Record<string, unknown>;
  if (typeof iat !== 'number' || !Number.isFinite(iat) || typeof claimedHash !== 'string') return undefined;
  if (!numericDate(exp) || !numericDate(nbf)) return undefined;

  const nowSeconds = Math.floor(input.nowMs / 1000);
  const age = nowSeconds - iat;
  const freshness = checkFreshness({
    ageSeconds: age,
    toleranceSeconds: input.toleranceSeconds,
    ignoreExpiry: input.ignoreExpiry,
    allowFutureIat: input.allowFutureIat,
  });
  if (freshness.failure) return undefined;
  if (typeof exp === 'number' && !input.ignoreExpiry && nowSeconds >= exp) return undefined;
  if (typeof nbf === 'number' && nowSeconds < nbf) return undefined;

  // Spec 5.2 step 4, in constant time; a digest has a fixed length, so unequal lengths say nothing.
  const bodySha256 = bodySha256Base64(input.body);
  const claimed = Buffer.from(claimedHash, 'utf8');
  const expected = Buffer.from(bodySha256, 'latin1');
  if (claimed.length !== expected.length || !timingSafeEqual(claimed, expected)) return undefined;

  return {
    ok: true,
    claims: claims as WebhookClaims,
    header,
    secretIndex,
    secretLabel: matched.label,
    ageSeconds: age,
    warnings: freshness.warning ? [freshness.warning] : [],
    checks: [
      { name: 'token', status: 'pass', detail: 'a JWT with a JSON header and JSON claims' },
      { name: 'algorithm', status: 'pass', detail: 'HS256' },
      { name: 'signature', status: 'pass', detail: `verified with ${describeSecret(matched, secretIndex)}` },
      { name: 'claims', status: 'pass', detail: 'iat and request_body_sha256 present' },
      freshness.check,
      { name: 'integrity', status: 'pass', detail: 'request_body_sha256 matches the body' },
    ],
    bodySha256,
  };
}
