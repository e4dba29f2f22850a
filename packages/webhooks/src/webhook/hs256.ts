import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * A secret's key, made once: a KeyObject spares every delivery the copy of the secret into a new
 * HMAC key. A handful of secrets is all a receiver holds (sandbox, production, a rotation); the cache
 * is cleared past that rather than grown by whatever arrives.
 */
const keys = new Map<string, KeyObject>();
export function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= 16) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * True when the token's HS256 signature verifies with this secret's UTF-8 bytes.
 *
 * Signing goes through jose; this check uses node:crypto directly. jose's build for Node runs
 * every verification through WebCrypto, many times slower than an HMAC here (`npm run bench`
 * measures it), too slow for `listen` under load and for a fast cold `verify`. The algorithm
 * is pinned by the caller (only HS256 reaches this function), and the comparison is constant-time.
 * The expected signature is compared as its canonical Base64url text, not as decoded bytes, so
 * that the spare bits of the last character cannot give one signature several spellings.
 */
export function verifiesWith(token: string, secret: string): boolean {
  const lastDot = token.lastIndexOf('.');
  if (secret.length === 0 || lastDot <= 0) return false;
  const given = Buffer.from(token.slice(lastDot + 1), 'utf8');
  // An HS256 MAC is 32 bytes, 43 characters: any other length matches no secret, and costs no HMAC.
  if (given.length !== 43) return false;
  const expected = createHmac('sha256', keyOf(secret)).update(token.slice(0, lastDot)).digest('base64url');
  return timingSafeEqual(Buffer.from(expected, 'latin1'), given);
}
