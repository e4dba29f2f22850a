import { bodySha256Base64, bodySha256Hex, constantTimeEqual, type WebhookBody } from './body-hash.js';
import { verifiesWith } from './hs256.js';
import type { LabelledSecret } from './secrets.js';
import { parseSegments, type Segments, segmentObject, spellingProblem, splitToken } from './token-parts.js';
import { removeVerificationPrefix } from './verification-prefix.js';
import type { CheckName, VerifyFailureCode } from './verify-result.js';

/*
 * The rules of spec 5.2 (with RFC 7515/7519 where the spec is silent), each written once as a small
 * function of one verification (the time rules in freshness.ts): undefined when it holds, else a
 * finding. verify.ts runs them cheapest first to accept a delivery; verify-verdict.ts runs them in the
 * verdict's order to explain a refusal.
 * What a rule works out (the segments, the decoded header and claims, which secret signs, the body's
 * hash) is kept on the verification, so running a rule again costs no second HMAC or hash.
 */

/** One delivery being verified: its options, normalised once, and what the rules found out. */
export interface Verification {
  readonly raw: string | undefined | null;
  readonly prefix: string | undefined;
  readonly body: WebhookBody;
  readonly secrets: readonly LabelledSecret[];
  readonly toleranceSeconds: number;
  readonly nowSeconds: number;
  readonly ignoreExpiry: boolean;
  readonly allowFutureIat: boolean;
  /** The JWT without prefix and surrounding blanks, and its segments (tokenRead). */
  token: string;
  segments: Segments;
  /** Decoded, untrusted until the signature verified (headerRule, payloadRule). */
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** Which secret signs the token, -1 for none; undefined until signatureRule ran. */
  secretIndex: number | undefined;
  /** Standard Base64 SHA-256 of the body, once integrityRule hashed it. */
  bodySha256: string | undefined;
}

/** What a rule says when it does not simply hold: a refusal (with a code) or a remark (warn, skip). */
export interface Finding {
  name: CheckName;
  status: 'fail' | 'warn' | 'skip';
  detail: string;
  code?: VerifyFailureCode | undefined;
  message?: string | undefined;
  /** A scheme ("Bearer ") seen before the JWT while no prefix is configured. */
  prefixSeen?: string | undefined;
}

/** A finding that refuses the delivery. */
export type Refusal = Finding & { code: VerifyFailureCode; message: string };

export type Rule = (verification: Verification) => Finding | undefined;

export const refuses = (finding: Finding | undefined): finding is Refusal => finding?.code !== undefined;

export const fail = (name: CheckName, detail: string, code: VerifyFailureCode, message: string): Refusal => ({
  name,
  status: 'fail',
  detail,
  code,
  message,
});

/** The header value present, the configured prefix (or none) taken off, three segments. */
export const tokenRead: Rule = (v) => {
  const raw = v.raw ?? '';
  if (raw.trim() === '')
    return fail(
      'token',
      'no verification header',
      'missing_token',
      'the delivery has no verification token (the header is missing or empty)',
    );
  const prefixed = removeVerificationPrefix(raw, v.prefix);
  if (!prefixed.ok)
    return { ...fail('token', prefixed.detail, 'malformed_token', prefixed.message), prefixSeen: prefixed.seen };
  const split = splitToken(prefixed.token);
  if (!split.ok) return malformed(split.reason);
  v.token = split.token;
  v.segments = split.segments;
  return undefined;
};

const malformed = (reason: string): Refusal => fail('token', reason, 'malformed_token', `malformed token: ${reason}`);

/** Each segment spelled in canonical Base64url: the shape rule that needs no decoding. */
export const tokenSpelling: Rule = (v) => {
  const [header, payload, signature] = v.segments;
  const problem =
    spellingProblem(header, 'header') ?? spellingProblem(payload, 'payload') ?? spellingProblem(signature, 'signature');
  return problem === undefined ? undefined : malformed(problem);
};

/** Every shape rule in the order a refusal names the first that fails (header, payload, signature), then crit. */
export const tokenShape: Rule = (v) => {
  const parsed = parseSegments(v.segments);
  if (!parsed.ok) return malformed(parsed.reason);
  v.header = parsed.parts.header;
  v.claims = parsed.parts.claims;
  return critRule(v);
};

/**
 * Header segments that passed headerRule, decoded: the service sends one fixed header, so this holds
 * one entry. On the accepted path only a header whose signature verified gets here; the map is bounded
 * all the same, and keeps only headers of plain values, each delivery getting its own copy.
 */
const goodHeaders = new Map<string, Record<string, unknown>>();

/** The header a JSON object that declares no critical extension (RFC 7515 4.1.11: we understand none). */
export const headerRule: Rule = (v) => {
  const segment = v.segments[0];
  const good = goodHeaders.get(segment);
  if (good !== undefined) {
    v.header = { ...good };
    return undefined;
  }
  const decoded = segmentObject(segment, 'header');
  if (!decoded.ok) return malformed(decoded.reason);
  v.header = decoded.value;
  const crit = critRule(v);
  if (crit === undefined && Object.values(v.header).every((value) => value === null || typeof value !== 'object')) {
    if (goodHeaders.size >= 4) goodHeaders.clear();
    goodHeaders.set(segment, { ...v.header });
  }
  return crit;
};

export const critRule: Rule = (v) =>
  v.header.crit === undefined
    ? undefined
    : fail(
        'token',
        'the header declares critical extensions (crit)',
        'malformed_token',
        'malformed token: the header declares critical extensions (crit), which the service never sends',
      );

export const payloadRule: Rule = (v) => {
  const decoded = segmentObject(v.segments[1], 'payload');
  if (!decoded.ok) return malformed(decoded.reason);
  v.claims = decoded.value;
  return undefined;
};

/** HS256 only: never none, never another family, never what the token asks for. */
export const algorithmRule: Rule = (v) => {
  const { alg } = v.header;
  if (alg === 'HS256') return undefined;
  const why = alg === 'none' ? 'an unsigned token (alg none)' : `alg ${typeof alg === 'string' ? alg : String(alg)}`;
  return fail(
    'algorithm',
    `${why}; only HS256 is accepted`,
    'algorithm_not_allowed',
    `${why} is not allowed: the service signs with HS256 only`,
  );
};

/** One HMAC per secret, worked out once: the first secret that signs the token wins. */
export const signatureRule: Rule = (v) => {
  v.secretIndex ??= v.secrets.findIndex((entry) => verifiesWith(v.token, entry.secret));
  if (v.secretIndex >= 0) return undefined;
  const count = v.secrets.length;
  return fail(
    'signature',
    `does not verify with ${count === 1 ? 'the secret' : `any of the ${count} secrets`}`,
    'bad_signature',
    'the signature does not verify with the webhook secret',
  );
};

const isNumericDate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Each claim's own rule: what is wrong with it, or undefined. */
const CLAIM_RULES: ReadonlyArray<(claims: Record<string, unknown>) => string | undefined> = [
  // RFC 7519: exp and nbf are NumericDates when present (the spec shows neither; absent changes nothing).
  ({ exp }) => (exp === undefined || isNumericDate(exp) ? undefined : `exp is not a number (${JSON.stringify(exp)})`),
  ({ nbf }) => (nbf === undefined || isNumericDate(nbf) ? undefined : `nbf is not a number (${JSON.stringify(nbf)})`),
  ({ iat }) =>
    isNumericDate(iat)
      ? undefined
      : `iat is ${iat === undefined ? 'missing' : `not a number (${JSON.stringify(iat)})`}`,
  ({ request_body_sha256: hash }) =>
    typeof hash === 'string' ? undefined : `request_body_sha256 is ${hash === undefined ? 'missing' : 'not a string'}`,
];

/** iat and request_body_sha256 present (spec 2.3), exp and nbf dates when given. */
export const claimsRule: Rule = (v) => {
  let problems: string[] | undefined;
  for (const rule of CLAIM_RULES) {
    const problem = rule(v.claims);
    if (problem === undefined) continue;
    problems = problems ?? [];
    problems.push(problem);
  }
  if (problems === undefined) return undefined;
  return fail('claims', problems.join('; '), 'invalid_claims', `invalid claims: ${problems.join('; ')}`);
};

/** Spec 5.2 step 4: the claimed hash against the raw body's, in constant time; the body hashed once. */
export const integrityRule: Rule = (v) => {
  const claimed = v.claims.request_body_sha256 as string;
  v.bodySha256 ??= bodySha256Base64(v.body);
  if (constantTimeEqual(claimed, v.bodySha256)) return undefined;
  // Compared in the claim's own encoding first (Base64, as the spec says); a hex claim gets the hex too.
  const hex = /^[0-9a-f]{64}$/i.test(claimed) ? ` (hex ${bodySha256Hex(v.body)})` : '';
  return fail(
    'integrity',
    `request_body_sha256 is ${claimed}, the body hashes to ${v.bodySha256}${hex}`,
    'body_mismatch',
    'the body does not match request_body_sha256',
  );
};
