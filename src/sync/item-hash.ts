import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: the same item hashes the same from a file and from jsonb. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A hash of an item's content, independent of key order (Postgres's jsonb reorders keys) and of how
 * a number was spelt (1.10 and 1.1 are one value once parsed).
 */
export function itemHash(item: unknown): string {
  return createHash('sha256').update(canonical(item)).digest('base64url');
}

/**
 * A hash of an item as serialised, key order included: native JSON.stringify, several times faster
 * than the canonical form. Equal quick hashes mean equal items; unequal ones are only suspects
 * (the same content with keys in another order), settled with itemHash.
 */
export function quickHash(item: unknown): string {
  return createHash('sha1').update(JSON.stringify(item)).digest('base64url');
}
