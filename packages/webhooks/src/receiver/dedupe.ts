/**
 * Where a receiver remembers the deliveries it has processed, so that a retried delivery runs its
 * handlers once; implement it over shared storage (e.g. Redis) for several processes. Deliveries
 * carry no id (spec 6.2: delivery guarantees are not shown), so a retried delivery can only be
 * recognised by its token. A store claims a key once; a second claim of the same key means the
 * delivery was already (or is being) processed.
 */
export interface DedupeStore {
  /**
   * Records the key and resolves true, or resolves false when the key is already recorded.
   * `ttlSeconds` is how long the token stays acceptable (the tolerance, more when its iat is in
   * the future): forgetting the key sooner would let a replay of it be processed again.
   */
  claim(key: string, ttlSeconds: number): boolean | Promise<boolean>;
  /** Forgets a key, so that a retry of a delivery whose handlers failed is processed again. */
  release(key: string): void | Promise<void>;
}

/** Options of `memoryDedupe`: the least time a delivery is remembered, the most deliveries remembered, and the clock. */
export interface MemoryDedupeOptions {
  /**
   * The least time a key is remembered; a key is kept longer when the receiver asks (a token stays
   * acceptable for the tolerance after its iat), so the default suits any tolerance.
   */
  ttlSeconds?: number | undefined;
  /** Upper bound on remembered keys; the oldest are forgotten first. */
  maxEntries?: number | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
}

/**
 * The least time `memoryDedupe` remembers a delivery by default, in seconds: longer than the default
 * tolerance (300), after which a replayed token is refused as expired anyway.
 */
export const DEFAULT_DEDUPE_TTL_SECONDS = 360;
/** The most deliveries `memoryDedupe` remembers by default; the oldest are forgotten first, so memory stays bounded. */
export const DEFAULT_DEDUPE_MAX_ENTRIES = 100_000;

/**
 * A `DedupeStore` in this process's memory, bounded in time and size: pass it as the `dedupe`
 * option so that a retried lifecycle event runs its handlers once. For several processes, implement
 * `DedupeStore` over a shared store (for example Redis `SET key 1 NX EX ttlSeconds`).
 *
 * @example
 * const webhooks = new Webhooks({ secret, dedupe: memoryDedupe() });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const leastTtlMs = (options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? DEFAULT_DEDUPE_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  // Insertion order is claim order. Expiries differ per key, so the sweep stops at the first live
  // key and a later expired one may linger until then: it is treated as absent, and maxEntries
  // still bounds the map.
  const expiries = new Map<string, number>();
  const sweep = (at: number) => {
    for (const [key, expiry] of expiries) {
      if (expiry > at && expiries.size < maxEntries) break;
      expiries.delete(key);
    }
  };
  return {
    claim(key, ttlSeconds = 0) {
      const at = now();
      sweep(at);
      const expiry = expiries.get(key);
      if (expiry !== undefined && expiry > at) return false;
      expiries.delete(key);
      expiries.set(key, at + Math.max(leastTtlMs, ttlSeconds * 1000));
      return true;
    },
    release(key) {
      expiries.delete(key);
    },
  };
}

/**
 * The key of a delivery: the bytes of the token's signature, unique per signed (body, iat).
 * Base64Url's last character carries spare bits that decoders ignore, so the same signature has
 * several spellings that all verify; re-encoding the bytes gives every spelling one key.
 *
 * @example
 * dedupeKey(req.headers['service-verification']); // 'mJ3x…' (43 Base64Url characters)
 */
export function dedupeKey(token: string): string {
  const trimmed = token.trim();
  return Buffer.from(trimmed.slice(trimmed.lastIndexOf('.') + 1), 'base64url').toString('base64url');
}

/** Seconds until a token issued at `iat` is refused as expired (now - iat >= tolerance), plus one of leeway. */
export function acceptableForSeconds(iat: number, toleranceSeconds: number, nowMs: number): number {
  return Math.max(0, Math.ceil(iat + toleranceSeconds - nowMs / 1000)) + 1;
}
