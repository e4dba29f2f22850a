import { createHash } from 'node:crypto';
import { LedgerhookError } from '../errors.js';

/** WebCrypto's key type, named through the global `crypto` (Node's and the Web's alike). */
type CryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

/** A webhook secret, optionally labelled (e.g. "sandbox", "production", "rotation #2"). */
export interface LabelledSecret {
  secret: string;
  label?: string | undefined;
}

/** A webhook secret: a string, or a `LabelledSecret`. */
export type SecretInput = string | LabelledSecret;

/** Turns a secret, a labelled secret or a list of either into a list of `LabelledSecret` (none gives an empty list). */
export function normaliseSecrets(input: SecretInput | readonly SecretInput[] | undefined): LabelledSecret[] {
  if (input === undefined) return [];
  const list = Array.isArray(input) ? input : [input as SecretInput];
  return list.map((entry) => (typeof entry === 'string' ? { secret: entry } : entry));
}

/**
 * Refuses a blank secret: an empty HMAC key would fail every delivery as forged (or, to sign, be a
 * key anyone can guess). Said at start-up instead of as a 500 on each delivery.
 */
export function assertUsableSecrets(secrets: readonly LabelledSecret[]): void {
  for (const [index, entry] of secrets.entries()) {
    if (typeof entry.secret === 'string' && entry.secret.trim() !== '') continue;
    throw new LedgerhookError(
      'ERR_USAGE',
      `webhook secret ${entry.label ? `"${entry.label}"` : `#${index + 1}`} is ${entry.secret === '' ? 'empty' : 'blank or not a string'}`,
      { details: { reason: 'empty_secret' } },
    );
  }
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
 * How a secret may be mentioned in output: that it is set, and a short fingerprint to tell two apart
 * (is this the sandbox one or the production one?). No character of it, not even its length. The hash
 * is domain-separated so it matches no other digest of the secret ledgerhook writes anywhere.
 */
export function maskSecret(secret: string): string {
  const digest = createHash('sha256').update('ledgerhook secret fingerprint\0').update(secret, 'utf8').digest('hex');
  return `set (fingerprint ${digest.slice(0, 8)})`;
}

export function describeSecret(entry: LabelledSecret, index: number): string {
  if (!entry.label) return `secret #${index + 1}`;
  // "the sandbox secret", but "the secret from ./sandbox.secret"
  return /^[a-z]+$/.test(entry.label) ? `the ${entry.label} secret` : `the secret from ${entry.label}`;
}
