import { CompactSign } from 'jose/jws/compact/sign';
import { LedgerhookError } from '../errors.js';
import { bodySha256Base64, type WebhookBody } from './body-hash.js';
import { secretKey } from './secrets.js';

/** Options of `signWebhook`: the `iat` to sign with, or the clock that gives it (default now). */
export interface SignWebhookOptions {
  /** Time of issue in seconds since the epoch; defaults to now. */
  iat?: number | undefined;
  /** Clock in milliseconds since the epoch, used when iat is not given. */
  now?: (() => number) | undefined;
}

/** A webhook token's claims: `iat` and `request_body_sha256` (any others kept). */
export interface WebhookClaims {
  iat: number;
  request_body_sha256: string;
  [claim: string]: unknown;
}

export function assertUsableSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new LedgerhookError('ERR_USAGE', 'the webhook secret is empty', {
      details: { reason: 'missing_webhook_secret' },
    });
  }
}

/** Signs any claims as an HS256 JWT keyed with the secret's UTF-8 bytes, for tokens `signWebhook` does not make. */
export async function signClaims(claims: Record<string, unknown>, secret: string): Promise<string> {
  assertUsableSecret(secret);
  const payload = new TextEncoder().encode(JSON.stringify(claims));
  return new CompactSign(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(await secretKey(secret));
}

/** The claims the service signs for a body (spec 2.3): `iat` (now, or the time given) and `request_body_sha256`. */
export function webhookClaims(body: WebhookBody, options: SignWebhookOptions = {}): WebhookClaims {
  const iat = options.iat ?? Math.floor((options.now ?? Date.now)() / 1000);
  if (!Number.isFinite(iat))
    throw new LedgerhookError('ERR_USAGE', `iat must be a number of seconds since the epoch, got ${String(iat)}`, {
      details: { reason: 'invalid_iat', value: iat },
    });
  return { iat, request_body_sha256: bodySha256Base64(body) };
}

/** Returns the JWT the service would send for this body (spec 5.2): HS256, iat, request_body_sha256. */
export async function signWebhook(
  body: WebhookBody,
  secret: string,
  options: SignWebhookOptions = {},
): Promise<string> {
  return signClaims(webhookClaims(body, options), secret);
}
