import { DEFAULT_TOLERANCE_SECONDS, DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { bodyLength, bodySha256Base64, bodySha256Hex, constantTimeEqual, type WebhookBody } from './body-hash.js';
import { explainBadSignature, explainBodyMismatch } from './diagnostics.js';
import { checkFreshness } from './freshness.js';
import { verifiesWith } from './hs256.js';
import { describeSecret, normaliseSecrets, type LabelledSecret, type SecretInput } from './secrets.js';
import type { WebhookClaims } from './sign.js';
import { parseToken, type TokenParts } from './token-parts.js';
import { removeVerificationPrefix, validateVerificationPrefix } from './verification-prefix.js';
import type { VerifyCheck, VerifyFailure, VerifyFailureCode, VerifyResult } from './verify-result.js';
import { NO_SECRET_MATCHED, verifyAccepted } from './verify-fast.js';

export type {
  CheckName,
  CheckStatus,
  VerifyCheck,
  VerifyFailure,
  VerifyFailureCode,
  VerifyResult,
  VerifySuccess,
} from './verify-result.js';

export interface VerifyWebhookOptions {
  body: WebhookBody;
  /** The Service-Verification header value (the bare JWT, or the JWT after verificationPrefix). */
  token: string | undefined | null;
  /**
   * What the service puts before the JWT in the header (e.g. "Bearer "), when it does; spec 5.2 shows
   * none, so by default there is none and a prefixed value is refused (naming what was seen).
   */
  verificationPrefix?: string | undefined;
  /** One or more secrets (sandbox and production, or a rotation); the first that verifies wins. */
  secrets: SecretInput | readonly SecretInput[];
  /**
   * Used only to explain a bad signature ("verifies with the production secret"); never to accept.
   * May be a function, so that a caller loads them only when a signature actually fails.
   */
  otherSecrets?: readonly SecretInput[] | (() => Promise<readonly SecretInput[]>) | undefined;
  toleranceSeconds?: number | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  /** Skip the freshness check (for replaying old captures offline). */
  ignoreExpiry?: boolean | undefined;
  /**
   * Accept an iat further in the future than the tolerance, with a warning. By default such a
   * token is refused as issued_in_future: it would otherwise stay valid until that time comes.
   */
  allowFutureIat?: boolean | undefined;
  /**
   * Explain a body_mismatch (default true): re-serialisations and digests of the body, so it runs only
   * when the signature verified and the body is at most DIAGNOSE_MAX_BODY_BYTES. Receivers on the
   * answer path pass false and explain later, on demand (captures show, verify --delivery, inspector).
   */
  diagnose?: boolean | undefined;
}

function validateTolerance(value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new LedgerhookError('ERR_USAGE', `the tolerance must be a number of seconds >= 0, got ${String(value)}`, {
      details: { reason: 'invalid_tolerance', value },
    });
  return value;
}

/** The verdict being built: every check is recorded, the first failure decides the code. */
class Verdict {
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
function checkShape(
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

async function checkSignature(
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

function claimProblems(claims: Record<string, unknown>): string[] {
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
function checkExpNbf(
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
function checkIntegrity(
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

/**
 * Verifies a webhook delivery as spec 5.2 describes: HS256 only, freshness (now - iat >= tolerance
 * is expired; an iat further ahead than the tolerance is refused too) and the body hash compared
 * in constant time. Never throws for a bad delivery: the result says what failed, and every check
 * is reported so that a person sees the whole picture. Throws LedgerhookError(ERR_USAGE) only for
 * unusable options (no secret, bad tolerance).
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifyResult> {
  const { secrets, tolerance } = usableOptions(options);
  // The accepted delivery's route (verify-fast.ts): it only says yes, with the result the full checks
  // would give; anything it cannot accept goes through every check, which explain.
  if (options.verificationPrefix === undefined) {
    const accepted = verifyAccepted({
      body: options.body,
      token: options.token,
      secrets,
      toleranceSeconds: tolerance,
      nowMs: (options.now ?? Date.now)(),
      ignoreExpiry: options.ignoreExpiry === true,
      allowFutureIat: options.allowFutureIat === true,
    });
    if (accepted === NO_SECRET_MATCHED) return verifyFully(options, { secrets, tolerance, signatureMismatch: true });
    if (accepted) return accepted;
  }
  return verifyFully(options, { secrets, tolerance });
}

function usableOptions(options: VerifyWebhookOptions): { secrets: LabelledSecret[]; tolerance: number } {
  const secrets = normaliseSecrets(options.secrets);
  if (secrets.length === 0 || secrets.every((entry) => entry.secret.length === 0)) {
    throw new LedgerhookError('ERR_USAGE', 'no webhook secret to verify with', {
      details: { reason: 'missing_webhook_secret' },
    });
  }
  const tolerance = validateTolerance(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  if (options.verificationPrefix !== undefined) validateVerificationPrefix(options.verificationPrefix);
  return { secrets, tolerance };
}

/**
 * Every check, each recorded: the route of a refused delivery (and the reference the fast route is
 * tested against). Internal: verifyWebhook is the API.
 */
export async function verifyFully(
  options: VerifyWebhookOptions,
  {
    secrets,
    tolerance,
    signatureMismatch = false,
  }: { secrets: LabelledSecret[]; tolerance: number; signatureMismatch?: boolean } = usableOptions(options),
): Promise<VerifyResult> {
  const verdict = new Verdict();
  const shaped = checkShape(options.token, options.verificationPrefix, verdict);
  if ('ok' in shaped) return shaped;
  const { token, parts: shape } = shaped;
  const secretIndex = await checkSignature(token, shape, secrets, options, verdict, signatureMismatch);
  // Past this point, claims are trusted only when the signature verified; we still report them
  // so that a person sees everything that is wrong at once.
  const { header, claims } = shape;
  const problems = claimProblems(claims);
  if (problems.length > 0) {
    verdict.checks.push({ name: 'claims', status: 'fail', detail: problems.join('; ') });
    return (
      verdict.first ?? verdict.fail('invalid_claims', `invalid claims: ${problems.join('; ')}`, { header, claims })
    );
  }
  verdict.checks.push({ name: 'claims', status: 'pass', detail: 'iat and request_body_sha256 present' });
  const iat = claims.iat as number;
  const claimedHash = claims.request_body_sha256 as string;

  const age = Math.floor((options.now ?? Date.now)() / 1000) - iat;
  const freshness = checkFreshness({
    ageSeconds: age,
    toleranceSeconds: tolerance,
    ignoreExpiry: options.ignoreExpiry === true,
    allowFutureIat: options.allowFutureIat === true,
  });
  verdict.checks.push(freshness.check);
  if (freshness.warning) verdict.warnings.push(freshness.warning);
  if (freshness.failure) verdict.fail(freshness.failure.code, freshness.failure.message, { header, claims });
  checkExpNbf(claims, Math.floor((options.now ?? Date.now)() / 1000), options.ignoreExpiry === true, verdict);

  const signatureVerified = secretIndex >= 0;
  const explain =
    options.diagnose !== false && signatureVerified && bodyLength(options.body) <= DIAGNOSE_MAX_BODY_BYTES;
  const bodySha256 = checkIntegrity(options.body, claimedHash, verdict, { header, claims }, explain);

  if (verdict.first) return { ...verdict.first, ageSeconds: age, bodySha256, signatureVerified };
  const matched = secrets[secretIndex];
  // Unreachable (a signature that did not verify failed above), but checked rather than asserted.
  if (!matched) return { ...verdict.fail('bad_signature', 'the signature does not verify'), ageSeconds: age };
  return {
    ok: true,
    claims: claims as WebhookClaims,
    header,
    secretIndex,
    secretLabel: matched.label,
    ageSeconds: age,
    warnings: verdict.warnings,
    checks: verdict.checks,
    bodySha256,
  };
}
