/** mulberry32: a small, fast, seeded PRNG; the same seed gives the same data on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator for one item: random but fully determined by (seed, key). */
export function randomFor(seed: number, key: number): () => number {
  return seededRandom(Math.imul(seed ^ 0x9e3779b9, 31) ^ Math.imul(key, 0x85ebca6b));
}

/** One of `values` (never empty: every list it is given is a constant). */
export function pick<T>(random: () => number, values: readonly [T, ...T[]]): T {
  return values[Math.floor(random() * values.length)] ?? values[0];
}
export const between = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));
export const money = (random: () => number, min: number, max: number): number =>
  Math.round((min + random() * (max - min)) * 100) / 100;
