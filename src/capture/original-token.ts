import { LedgerhookError } from '../errors.js';
import { verifyWebhookRequest } from '@ledgerhook/webhooks';
import type { SecretInput } from '@ledgerhook/webhooks';
import { type CaptureRecord, capturedHeaderValues, fullCapturedBody } from './capture-record.js';

/**
 * The one rule before anything captured is re-signed: its ORIGINAL token verifies with the secrets
 * held now, as it did at receipt. A capture file is input like any other (anyone can write
 * `"verdict": {"valid": true}` over a body of their choosing), so its verdict field is never read;
 * re-signing is what turns a body into one every receiver accepts, and it is earned only by a token
 * that only the secret's holder could have made for exactly these bytes.
 *
 * The checks that apply, through verifyWebhookRequest: exactly one token in the header the delivery
 * was captured under (a repeated header is refused, as listen refuses it), the configured prefix, a
 * JWT with alg HS256, its signature with one of the current secrets, its claims (iat and
 * request_body_sha256 present), and the SHA-256 of the whole captured body against
 * request_body_sha256 (a body kept only in part never passes). Freshness (the iat's age, exp, nbf)
 * is left out: a replay is later by nature, and the fresh token says when it was re-signed.
 */
export interface OriginalTokenOptions {
  /** The secrets held now (any one may verify); none means nothing can be re-signed. */
  secrets: readonly SecretInput[];
  /** What the service puts before the JWT (the verificationPrefix setting); default none. */
  verificationPrefix?: string | undefined;
}

export type OriginalTokenVerdict = { ok: true } | { ok: false; code: string; message: string };

export async function verifyOriginalToken(
  record: CaptureRecord,
  options: OriginalTokenOptions,
): Promise<OriginalTokenVerdict> {
  if (options.secrets.length === 0)
    return { ok: false, code: 'missing_webhook_secret', message: 'no webhook secret to verify it with' };
  if (record.bodyTruncated === true)
    return { ok: false, code: 'capture_body_truncated', message: 'only the head of its body was captured' };
  const result = await verifyWebhookRequest({
    headers: capturedHeaderValues(record),
    headerName: record.headerName,
    body: fullCapturedBody(record),
    secrets: options.secrets,
    verificationPrefix: options.verificationPrefix,
    ignoreExpiry: true,
    diagnose: false,
  });
  return result.ok ? { ok: true } : { ok: false, code: result.code, message: result.message };
}

/**
 * Refuses the whole batch, before anything is sent, when any delivery to be re-signed fails
 * verifyOriginalToken: nothing goes out, and one error names the first such delivery and why.
 */
export async function assertResignable(
  records: readonly CaptureRecord[],
  options: OriginalTokenOptions,
): Promise<void> {
  const refused: Array<{ record: CaptureRecord; code: string; message: string }> = [];
  for (const record of records) {
    const verdict = await verifyOriginalToken(record, options);
    if (!verdict.ok) refused.push({ record, code: verdict.code, message: verdict.message });
  }
  const [first] = refused;
  if (!first) return;
  const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : '';
  throw new LedgerhookError(
    'ERR_CHECK_FAILED',
    `nothing was sent: delivery ${first.record.id}${more} would be re-signed, but its original token does not verify with the secret now (${first.code}: ${first.message})`,
    {
      details: {
        reason: 'original_token_not_verified',
        id: first.record.id,
        code: first.code,
        count: refused.length,
      },
    },
  );
}
