import { createHash, hash, timingSafeEqual } from 'node:crypto';

/** What a webhook body may be given as. It is always hashed exactly as given. */
export type WebhookBody = string | Uint8Array;

export function bodyBytes(body: WebhookBody): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** The size in bytes, without copying a string body. */
export function bodyLength(body: WebhookBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
}

/** The request_body_sha256 claim: standard, padded Base64 of the SHA-256 digest of the raw bytes. */
export function bodySha256Base64(body: WebhookBody): string {
  // A string is hashed as UTF-8 by the hash itself: no copy of the body. The one-shot crypto.hash
  // (Node >= 20.12) spares the Hash object of createHash, a noticeable share of an accepted verification.
  return hash('sha256', body, 'base64');
}

/** The SHA-256 of a body's bytes as hex: a digest a sender may wrongly put in the claim, which is Base64 (`bodySha256Base64`). */
export function bodySha256Hex(body: WebhookBody): string {
  return createHash('sha256').update(bodyBytes(body)).digest('hex');
}

/**
 * Compares two strings in constant time (spec 5.2 step 4), so that timing reveals nothing about
 * where they differ. Lengths are not secret (a digest has a fixed length), but we still compare
 * equal-length buffers so timing reveals nothing else.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
