export interface LatencySummary {
  p50: number;
  p95: number;
  max: number;
}

/** A latency in milliseconds as reported: to a tenth (the clock's noise is larger than that). */
export const roundMs = (ms: number): number => Math.round(ms * 10) / 10;

/** Nearest-rank percentiles of latencies in milliseconds, to a tenth (0 for an empty list). */
export function summariseLatencies(values: readonly number[]): LatencySummary {
  if (values.length === 0) return { p50: 0, p95: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  return { p50: roundMs(rank(50)), p95: roundMs(rank(95)), max: roundMs(sorted.at(-1) ?? 0) };
}
