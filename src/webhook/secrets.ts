import type { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

/** A webhook secret, optionally labelled (e.g. "sandbox", "production", "rotation #2"). */
export interface LabelledSecret {
  secret: string;
  label?: string | undefined;
}

export type SecretInput = string | LabelledSecret;

export function normaliseSecrets(input: SecretInput | readonly SecretInput[] | undefined): LabelledSecret[] {
  if (input === undefined) return [];
  const list = Array.isArray(input) ? input : [input as SecretInput];
  return list.map((entry) => (typeof entry === 'string' ? { secret: entry } : entry));
}

const KEY_CACHE_SIZE = 16;
const keyCache = new Map<string, Promise<CryptoKey>>();

/**
 * The secret as an HS256 key: its UTF-8 bytes (spec 5.2). Imported keys are cached because
 * WebCrypto's importKey costs as much as the verification itself; a receiver verifies with
 * the same one or two secrets all day.
 */
export function secretKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = globalThis.crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    const oldest = keyCache.keys().next();
    if (keyCache.size >= KEY_CACHE_SIZE && !oldest.done) keyCache.delete(oldest.value);
    keyCache.set(secret, key);
  }
  return key;
}

/**
 * How a secret may be mentioned in output: never the secret itself.
 * Shows the first 5 characters only when the secret is long enough that they give little away.
 */
export function maskSecret(secret: string): string {
  const prefix = secret.length >= 24 ? secret.slice(0, 5) : '';
  return `${prefix}…(${secret.length} chars)`;
}

export function describeSecret(entry: LabelledSecret, index: number): string {
  if (!entry.label) return `secret #${index + 1}`;
  // "the sandbox secret", but "the secret from ./sandbox.secret"
  return /^[a-z]+$/.test(entry.label) ? `the ${entry.label} secret` : `the secret from ${entry.label}`;
}
