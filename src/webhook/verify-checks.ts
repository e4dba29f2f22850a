import { bodySha256Base64, bodySha256Hex, constantTimeEqual, type WebhookBody } from './body-hash.js';
import { explainBadSignature, explainBodyMismatch } from './diagnostics.js';
import { verifiesWith } from './hs256.js';
import { describeSecret, normaliseSecrets, type LabelledSecret } from './secrets.js';
import { parseToken, type TokenParts } from './token-parts.js';
import { removeVerificationPrefix } from './verification-prefix.js';
import type { VerifyCheck, VerifyFailure, VerifyFailureCode } from './verify-result.js';
import type { VerifyWebhookOptions } from './verify-options.js';

/*
 * The checks of the full route (verify.ts verifyFully), each recording its outcome in the verdict so
 * that a refused delivery is explained whole; the accepted delivery's route (verify-fast.ts) runs none.
 */

/** The verdict being built: every check is recorded, the first failure decides the code. */
export class Verdict {
  readonly checks: VerifyCheck[] = [];
  readonly warnings: string[] = [];
  first: VerifyFailure | undefined;

  fail(code: VerifyFailureCode, message: string, extra: Partial<VerifyFailure> = {}): VerifyFailure {
    const failure: VerifyFailure = {
      ok: false,
      code,
      message,
      hints: [],
      warnings: this.warnings,
      checks: this.checks,
    };
    Object.assign(failure, extra);
    this.first ??= failure;
    return failure;
  }
}

/** Token shape, crit and algorithm: a failure here ends verification (nothing later is meaningful). */
export function checkShape(
  raw: string | undefined | null,
  prefix: string | undefined,
  verdict: Verdict,
): { parts: TokenParts; token: string } | VerifyFailure {
  if ((raw ?? '').trim() === '') {
    verdict.checks.push({ name: 'token', status: 'fail', detail: 'no verification header' });
    return verdict.fail('missing_token', 'the delivery has no verification token (the header is missing or empty)');
  }
  const prefixed = removeVerificationPrefix(raw ?? '', prefix);
  if (!prefixed.ok) {
    verdict.checks.push({ name: 'token', status: 'fail', detail: prefixed.detail });
    return verdict.fail('malformed_token', prefixed.message, { prefixSeen: prefixed.seen });
  }
  const parsed = parseToken(prefixed.token);
  if (!parsed.ok) {
    verdict.checks.push({ name: 'token', status: 'fail', detail: parsed.reason });
    return verdict.fail('malformed_token', `malformed token: ${parsed.reason}`);
  }
  const { header, claims } = parsed.parts;
  if (header.crit !== undefined) {
    // RFC 7515: a recipient must refuse critical extensions it does not understand, and we understand none.
    verdict.checks.push({ name: 'token', status: 'fail', detail: 'the header declares critical extensions (crit)' });
    return verdict.fail(
      'malformed_token',
      'malformed token: the header declares critical extensions (crit), which the service never sends',
    );
  }
  verdict.checks.push({ name: 'token', status: 'pass', detail: 'a JWT with a JSON header and JSON claims' });
  if (header.alg !== 'HS256') {
    const alg = typeof header.alg === 'string' ? header.alg : String(header.alg);
    const why = alg === 'none' ? 'an unsigned token (alg none)' : `alg ${alg}`;
    verdict.checks.push({ name: 'algorithm', status: 'fail', detail: `${why}; only HS256 is accepted` });
    return verdict.fail('algorithm_not_allowed', `${why} is not allowed: the service signs with HS256 only`, {
      header,
      claims,
    });
  }
  verdict.checks.push({ name: 'algorithm', status: 'pass', detail: 'HS256' });
  return { parts: parsed.parts, token: prefixed.token };
}

export async function checkSignature(
  token: string,
  parts: TokenParts,
  secrets: readonly LabelledSecret[],
  options: VerifyWebhookOptions,
  verdict: Verdict,
  /** The fast route already found that no secret signs this token (verify-fast.ts NO_SECRET_MATCHED). */
  knownMismatch: boolean,
): Promise<number> {
  const index = knownMismatch ? -1 : secrets.findIndex((entry) => verifiesWith(token, entry.secret));
  const matched = secrets[index];
  if (matched) {
    verdict.checks.push({
      name: 'signature',
      status: 'pass',
      detail: `verified with ${describeSecret(matched, index)}`,
    });
    return index;
  }
  const others =
    typeof options.otherSecrets === 'function' ? await options.otherSecrets() : (options.otherSecrets ?? []);
  const hints = await explainBadSignature(token, secrets, normaliseSecrets(others));
  verdict.checks.push({
    name: 'signature',
    status: 'fail',
    detail: `does not verify with ${secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`}`,
  });
  verdict.fail('bad_signature', 'the signature does not verify with the webhook secret', {
    header: parts.header,
    claims: parts.claims,
    hints,
  });
  return -1;
}

export function claimProblems(claims: Record<string, unknown>): string[] {
  const { iat, request_body_sha256: hash } = claims;
  const problems: string[] = [];
  // RFC 7519: exp and nbf are NumericDates when present (the spec shows neither; absent changes nothing).
  for (const name of ['exp', 'nbf'] as const)
    if (claims[name] !== undefined && (typeof claims[name] !== 'number' || !Number.isFinite(claims[name])))
      problems.push(`${name} is not a number (${JSON.stringify(claims[name])})`);
  if (typeof iat !== 'number' || !Number.isFinite(iat))
    problems.push(`iat is ${iat === undefined ? 'missing' : `not a number (${JSON.stringify(iat)})`}`);
  if (typeof hash !== 'string')
    problems.push(`request_body_sha256 is ${hash === undefined ? 'missing' : 'not a string'}`);
  return problems;
}

/** RFC 7519 exp and nbf, honoured when present: past exp is expired, before nbf is not yet valid. */
export function checkExpNbf(
  claims: Record<string, unknown>,
  nowSeconds: number,
  ignoreExpiry: boolean,
  verdict: Verdict,
): void {
  const { exp, nbf } = claims;
  if (typeof exp === 'number' && !ignoreExpiry && nowSeconds >= exp) {
    const iso = new Date(exp * 1000).toISOString();
    verdict.checks.push({ name: 'freshness', status: 'fail', detail: `exp ${iso} has passed` });
    verdict.fail('expired', `the token expired at ${iso} (its exp claim)`, { claims });
  }
  if (typeof nbf === 'number' && nowSeconds < nbf) {
    const iso = new Date(nbf * 1000).toISOString();
    verdict.checks.push({ name: 'freshness', status: 'fail', detail: `nbf ${iso} is still ahead` });
    verdict.fail('issued_in_future', `the token is not valid before ${iso} (its nbf claim)`, { claims });
  }
}

/**
 * Spec 5.2 step 4: the claimed hash against the raw body, in constant time. The body is hashed once,
 * here; before the signature verified that is all the work a delivery gets.
 */
export function checkIntegrity(
  body: WebhookBody,
  claimedHash: string,
  verdict: Verdict,
  parts: Partial<VerifyFailure>,
  explain: boolean,
): string {
  const expectedHash = bodySha256Base64(body);
  if (constantTimeEqual(claimedHash, expectedHash)) {
    verdict.checks.push({ name: 'integrity', status: 'pass', detail: 'request_body_sha256 matches the body' });
    return expectedHash;
  }
  // Compared in the claim's own encoding first (Base64, as the spec says); a hex claim gets the hex too.
  const hex = /^[0-9a-f]{64}$/i.test(claimedHash) ? ` (hex ${bodySha256Hex(body)})` : '';
  verdict.checks.push({
    name: 'integrity',
    status: 'fail',
    detail: `request_body_sha256 is ${claimedHash}, the body hashes to ${expectedHash}${hex}`,
  });
  const hints = explain ? explainBodyMismatch(body, claimedHash) : [];
  // The headline names the cause when it is known (hex digest, re-serialised body), not a guess.
  const cause = explain ? hints[0] : undefined;
  const headline = cause?.startsWith('request_body_sha256 is the hex digest')
    ? 'the body does not match request_body_sha256: the claim is a hex digest, not Base64'
    : cause?.includes('re-serialised')
      ? 'the body does not match request_body_sha256: these are not the bytes that were signed (re-serialised)'
      : explain
        ? 'the body does not match request_body_sha256: it was changed after signing'
        : // Not explained (a forgery, a large body, or on a receiver's answer path): no guessed cause.
          'the body does not match request_body_sha256';
  verdict.fail('body_mismatch', headline, { ...parts, hints });
  return expectedHash;
}
