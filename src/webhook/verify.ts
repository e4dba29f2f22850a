import { usageError } from '../errors.js';
import { bodySha256Base64, constantTimeEqual, type WebhookBody } from './body-hash.js';
import { explainBadSignature, explainBodyMismatch } from './diagnostics.js';
import { verifiesWith } from './hs256.js';
import { describeSecret, normaliseSecrets, type LabelledSecret, type SecretInput } from './secrets.js';
import { parseToken } from './token-parts.js';
import type { WebhookClaims } from './sign.js';

/** Spec 5.2 step 3 and section 8: the recommended tolerance is 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailureCode =
  | 'missing_token'
  | 'malformed_token'
  | 'algorithm_not_allowed'
  | 'bad_signature'
  | 'invalid_claims'
  | 'expired'
  | 'issued_in_future'
  | 'body_mismatch';

export type CheckName = 'token' | 'algorithm' | 'signature' | 'claims' | 'freshness' | 'integrity';
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One line of the verdict: what was checked, how it went, and why. */
export interface VerifyCheck {
  name: CheckName;
  status: CheckStatus;
  detail: string;
}

export interface VerifyWebhookOptions {
  body: WebhookBody;
  /** The Service-Verification header value (the bare JWT). */
  token: string | undefined | null;
  /** One or more secrets (sandbox and production, or a rotation); the first that verifies wins. */
  secrets: SecretInput | readonly SecretInput[];
  /**
   * Used only to explain a bad signature ("verifies with the production secret"); never to accept.
   * May be a function, so that a caller loads them only when a signature actually fails.
   */
  otherSecrets?: readonly SecretInput[] | (() => Promise<readonly SecretInput[]>);
  toleranceSeconds?: number;
  /** Clock in milliseconds since the epoch. */
  now?: () => number;
  /** Skip the freshness check (for replaying old captures offline). */
  ignoreExpiry?: boolean;
  /** Treat an iat in the future by more than the tolerance as an error instead of a warning. */
  strict?: boolean;
}

export interface VerifySuccess {
  ok: true;
  claims: WebhookClaims;
  header: Record<string, unknown>;
  /** Index into `secrets` of the secret that verified the signature. */
  secretIndex: number;
  secretLabel?: string;
  ageSeconds: number;
  warnings: string[];
  checks: VerifyCheck[];
}

export interface VerifyFailure {
  ok: false;
  code: VerifyFailureCode;
  message: string;
  /** Decoded but, unless the signature check passed, untrusted. */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  ageSeconds?: number;
  /** Plain-words guesses at the cause. */
  hints: string[];
  warnings: string[];
  checks: VerifyCheck[];
}

export type VerifyResult = VerifySuccess | VerifyFailure;

function validateTolerance(value: number): number {
  if (!Number.isFinite(value) || value < 0) throw usageError(`tolerance must be a number of seconds >= 0, got ${String(value)}`);
  return value;
}

function findVerifyingSecret(token: string, secrets: readonly LabelledSecret[]): number {
  return secrets.findIndex((entry) => verifiesWith(token, entry.secret));
}

/**
 * Verifies a webhook delivery as spec 5.2 describes: HS256 only, freshness (now - iat >= tolerance
 * is expired) and the body hash compared in constant time. Never throws for a bad delivery: the
 * result says what failed, and every check is reported so that a person sees the whole picture.
 * Throws LedgerhookError(ERR_USAGE) only for unusable options (no secret, bad tolerance).
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifyResult> {
  const secrets = normaliseSecrets(options.secrets);
  if (secrets.length === 0 || secrets.every((entry) => entry.secret.length === 0)) {
    throw usageError('no webhook secret to verify with: pass --secret, --secret-file, LEDGERHOOK_WEBHOOK_SECRET, or set it with `ledgerhook config set webhookSecret`');
  }
  const tolerance = validateTolerance(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  const checks: VerifyCheck[] = [];
  const warnings: string[] = [];
  const fail = (code: VerifyFailureCode, message: string, extra: Partial<VerifyFailure> = {}): VerifyFailure => ({
    ok: false, code, message, hints: [], warnings, checks, ...extra,
  });

  const raw = options.token ?? '';
  if (raw.trim() === '') {
    checks.push({ name: 'token', status: 'fail', detail: 'no verification header' });
    return fail('missing_token', 'the delivery has no verification token (the Service-Verification header is missing or empty)');
  }
  const parsed = parseToken(raw);
  if (!parsed.ok) {
    checks.push({ name: 'token', status: 'fail', detail: parsed.reason });
    return fail('malformed_token', `malformed token: ${parsed.reason}`);
  }
  const token = raw.trim();
  const { header, claims } = parsed.parts;
  checks.push({ name: 'token', status: 'pass', detail: 'a JWT with a JSON header and JSON claims' });

  if (header.crit !== undefined) {
    // RFC 7515: a recipient must refuse critical extensions it does not understand, and we understand none.
    checks.push({ name: 'token', status: 'fail', detail: 'the header declares critical extensions (crit)' });
    return fail('malformed_token', 'malformed token: the header declares critical extensions (crit), which the service never sends');
  }
  if (header.alg !== 'HS256') {
    const alg = typeof header.alg === 'string' ? header.alg : String(header.alg);
    const why = alg === 'none' ? 'an unsigned token (alg none)' : `alg ${alg}`;
    checks.push({ name: 'algorithm', status: 'fail', detail: `${why}; only HS256 is accepted` });
    return fail('algorithm_not_allowed', `${why} is not allowed: the service signs with HS256 only`, { header, claims });
  }
  checks.push({ name: 'algorithm', status: 'pass', detail: 'HS256' });

  const secretIndex = findVerifyingSecret(token, secrets);
  const signatureOk = secretIndex >= 0;
  let firstFailure: VerifyFailure | undefined;
  if (signatureOk) {
    const matched = secrets[secretIndex]!;
    checks.push({ name: 'signature', status: 'pass', detail: `verified with ${describeSecret(matched, secretIndex)}` });
  } else {
    const others = typeof options.otherSecrets === 'function' ? await options.otherSecrets() : options.otherSecrets ?? [];
    const hints = await explainBadSignature(token, secrets, normaliseSecrets(others));
    checks.push({ name: 'signature', status: 'fail', detail: `does not verify with ${secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`}` });
    firstFailure = fail('bad_signature', 'the signature does not verify with the webhook secret', { header, claims, hints });
  }
  // Past this point, claims are trusted only when the signature verified; we still report them
  // so that a person sees everything that is wrong at once.
  const { iat, request_body_sha256: claimedHash } = claims;
  const claimProblems: string[] = [];
  if (typeof iat !== 'number' || !Number.isFinite(iat)) claimProblems.push(`iat is ${iat === undefined ? 'missing' : `not a number (${JSON.stringify(iat)})`}`);
  if (typeof claimedHash !== 'string') claimProblems.push(`request_body_sha256 is ${claimedHash === undefined ? 'missing' : 'not a string'}`);
  if (claimProblems.length > 0) {
    checks.push({ name: 'claims', status: 'fail', detail: claimProblems.join('; ') });
    firstFailure ??= fail('invalid_claims', `invalid claims: ${claimProblems.join('; ')}`, { header, claims });
    return firstFailure;
  }
  checks.push({ name: 'claims', status: 'pass', detail: 'iat and request_body_sha256 present' });

  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const age = nowSeconds - (iat as number);
  if (options.ignoreExpiry) {
    checks.push({ name: 'freshness', status: 'skip', detail: `not checked (age ${age}s)` });
  } else if (age >= tolerance) {
    checks.push({ name: 'freshness', status: 'fail', detail: `issued ${age}s ago; the tolerance is ${tolerance}s` });
    firstFailure ??= fail('expired', `the webhook expired: issued ${age}s ago, tolerance ${tolerance}s`, { header, claims, ageSeconds: age });
  } else if (-age > tolerance) {
    const message = `iat is ${-age}s in the future, more than the tolerance of ${tolerance}s: check this machine's clock`;
    if (options.strict) {
      checks.push({ name: 'freshness', status: 'fail', detail: message });
      firstFailure ??= fail('issued_in_future', message, { header, claims, ageSeconds: age });
    } else {
      checks.push({ name: 'freshness', status: 'warn', detail: message });
      warnings.push(message);
    }
  } else {
    checks.push({ name: 'freshness', status: 'pass', detail: `issued ${age}s ago; the tolerance is ${tolerance}s` });
  }

  const expectedHash = bodySha256Base64(options.body);
  if (constantTimeEqual(claimedHash as string, expectedHash)) {
    checks.push({ name: 'integrity', status: 'pass', detail: 'request_body_sha256 matches the body' });
  } else {
    const hints = explainBodyMismatch(options.body, claimedHash as string);
    checks.push({ name: 'integrity', status: 'fail', detail: `request_body_sha256 is ${claimedHash as string}, the body hashes to ${expectedHash}` });
    firstFailure ??= fail('body_mismatch', 'the body does not match request_body_sha256: it was changed after signing', { header, claims, ageSeconds: age, hints });
  }

  if (firstFailure) return { ...firstFailure, ageSeconds: age };
  const matched = secrets[secretIndex]!;
  return {
    ok: true,
    claims: claims as WebhookClaims,
    header,
    secretIndex,
    ...(matched.label ? { secretLabel: matched.label } : {}),
    ageSeconds: age,
    warnings,
    checks,
  };
}
