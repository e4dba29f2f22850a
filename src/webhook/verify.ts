import { DEFAULT_TOLERANCE_SECONDS, DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { bodyLength } from './body-hash.js';
import { checkExpNbf, checkIntegrity, checkShape, checkSignature, claimProblems, Verdict } from './verify-checks.js';
import { checkFreshness } from './freshness.js';
import { normaliseSecrets, type LabelledSecret } from './secrets.js';
import type { WebhookClaims } from './sign.js';
import { validateVerificationPrefix } from './verification-prefix.js';
import type { VerifyResult } from './verify-result.js';
import { NO_SECRET_MATCHED, verifyAccepted } from './verify-fast.js';
import type { VerifyWebhookOptions } from './verify-options.js';

export type {
  CheckName,
  CheckStatus,
  VerifyCheck,
  VerifyFailure,
  VerifyFailureCode,
  VerifyResult,
  VerifySuccess,
} from './verify-result.js';
export type { VerifyWebhookOptions } from './verify-options.js';

function validateTolerance(value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new LedgerhookError('ERR_USAGE', `the tolerance must be a number of seconds >= 0, got ${String(value)}`, {
      details: { reason: 'invalid_tolerance', value },
    });
  return value;
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
