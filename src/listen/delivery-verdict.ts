import { DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import type { DeliveryVerdict, HeaderRecord } from '../delivery/received-delivery.js';
import { parseWebhookBody, type ParsedWebhookBody } from '@ledgerhook/webhooks';
import { verifyWebhookRequest } from '@ledgerhook/webhooks';
import { type VerifyWebhookOptions, verifyWebhook } from '@ledgerhook/webhooks';
import type { DeliveryRequest, HandleDeliveryOptions } from './handle-delivery.js';

// The verdict on one delivery (handleDelivery's first step): its signature, then its body.

/**
 * A refused body is parsed only when its signature verified and it is small: before the signature
 * verifies, a delivery costs one hash and nothing more (parsing a forged body only feeds a flood).
 */
export function parseIfWorthIt(body: Buffer, verdict: DeliveryVerdict): ParsedWebhookBody {
  if (verdict.valid !== false) return parseWebhookBody(body);
  if (!verdict.signatureVerified) return { ok: false, reason: 'not parsed: the signature did not verify' };
  if (body.length > DIAGNOSE_MAX_BODY_BYTES)
    return { ok: false, reason: `not parsed: a refused body of ${body.length} bytes` };
  return parseWebhookBody(body);
}

/**
 * The token when the record holds exactly one header of that name, under its lower-case spelling
 * (as the listener's records do); otherwise undefined, and `findHeader` looks (any case, repeats
 * refused). Spares each delivery findHeader's copy of every header: it answers the same here.
 */
function soleHeader(headers: HeaderRecord, lowerName: string): string | undefined {
  const value = headers[lowerName];
  if (typeof value !== 'string') return undefined;
  for (const name in headers)
    if (name !== lowerName && name.length === lowerName.length && name.toLowerCase() === lowerName) return undefined;
  return value;
}

export async function judge(
  request: DeliveryRequest,
  options: HandleDeliveryOptions,
  nowMs: number,
  headerName: string,
): Promise<DeliveryVerdict> {
  if (options.secrets.length === 0) return { valid: null, warnings: [] };
  const token = soleHeader(request.headers, headerName);
  const verifyOptions: VerifyWebhookOptions = {
    token,
    verificationPrefix: options.verificationPrefix,
    toleranceSeconds: options.toleranceSeconds,
    body: request.body,
    secrets: options.secrets,
    allowFutureIat: options.allowFutureIat,
    now: () => nowMs,
    // Never on the answer path: explained later, on demand (listen's line, captures show, the inspector).
    diagnose: false,
  };
  const result =
    token === undefined
      ? await verifyWebhookRequest({ ...verifyOptions, headers: request.headers, headerName: options.headerName })
      : await verifyWebhook(verifyOptions);
  const { bodySha256 } = result;
  if (result.ok) return { valid: true, warnings: result.warnings, bodySha256, signatureVerified: true };
  return {
    valid: false,
    code: result.code,
    message: result.message,
    warnings: result.warnings,
    bodySha256,
    signatureVerified: result.signatureVerified === true,
    ...(result.signatureVerified && typeof result.claims?.request_body_sha256 === 'string'
      ? { claimedBodySha256: result.claims.request_body_sha256 }
      : {}),
  };
}
