import type { WebhookClaims } from './sign.js';

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

export type VerifyResult = VerifySuccess | VerifyFailure;
