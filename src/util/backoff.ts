/**
 * The wait before retry number `retry` (1, 2, ...) of a transient failure: doubling from firstMs,
 * capped at capMs, with up to 20 % jitter so that many retries do not arrive together.
 */
export function transientWait(
  retry: number,
  options: { firstMs?: number | undefined; capMs?: number | undefined } = {},
  random: () => number = Math.random,
): number {
  const first = options.firstMs ?? 2000;
  const cap = options.capMs ?? 60_000;
  const base = Math.min(cap, first * 2 ** Math.min(Math.max(retry - 1, 0), 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}
