import type { WebhookClaims } from './sign.js';

/** Why a delivery was refused: a stable name for programs (also what a receiver answers with 400). */
export type VerifyFailureCode =
  | 'missing_token'
  | 'malformed_token'
  | 'algorithm_not_allowed'
  | 'bad_signature'
  | 'invalid_claims'
  | 'expired'
  | 'issued_in_future'
  | 'body_mismatch';

/** The checks a verification reports, in this order; `integrity` is the body's hash against its claim. */
export type CheckName = 'token' | 'algorithm' | 'signature' | 'claims' | 'freshness' | 'integrity';
/**
 * How one check went: `pass`, `fail`, `warn` (held, but worth a look) or `skip` (not checked: the
 * expiry was ignored, or the signature did not verify).
 */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One line of the verdict: what was checked, how it went, and why. */
export interface VerifyCheck {
  name: CheckName;
  status: CheckStatus;
  detail: string;
}

/** An authentic delivery: its claims and header, which secret verified it, its age and any warnings. */
export interface VerifySuccess {
  ok: true;
  claims: WebhookClaims;
  header: Record<string, unknown>;
  /** Index into `secrets` of the secret that verified the signature. */
  secretIndex: number;
  secretLabel?: string | undefined;
  ageSeconds: number;
  warnings: string[];
  checks: VerifyCheck[];
  /** Standard Base64 SHA-256 of the body (verification computed it once; nobody needs to again). */
  bodySha256?: string | undefined;
}

/** A refused delivery: the failure `code`, a message, hints at the cause, every check, and the decoded (untrusted) claims. */
export interface VerifyFailure {
  ok: false;
  code: VerifyFailureCode;
  message: string;
  /** Decoded but, unless the signature check passed, untrusted. */
  claims?: Record<string, unknown> | undefined;
  header?: Record<string, unknown> | undefined;
  ageSeconds?: number | undefined;
  /** Plain-words guesses at the cause. */
  hints: string[];
  warnings: string[];
  checks: VerifyCheck[];
  /** Standard Base64 SHA-256 of the body, when it was hashed (the claims were usable). */
  bodySha256?: string | undefined;
  /** A scheme ("Bearer ") seen before the JWT while no verificationPrefix is configured. */
  prefixSeen?: string | undefined;
  /** Whether the signature verified (a body_mismatch then is worth explaining; a forgery never is). */
  signatureVerified?: boolean | undefined;
}

/** What `verifyWebhook` returns: a `VerifySuccess` (`ok: true`) or a `VerifyFailure` (`ok: false`). */
export type VerifyResult = VerifySuccess | VerifyFailure;
