import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall time of whole processes (medians), interleaved so that machine noise hits every variant alike. */
export function timeProcesses(
  variants: Record<string, string[]>,
  runs: number,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, number> {
  const samples = timeProcessSamples(variants, runs, env);
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

/** timeProcesses' every sample, run by run (run i of each variant taken back to back). */
export function timeProcessSamples(
  variants: Record<string, string[] | { argv: string[]; env: NodeJS.ProcessEnv }>,
  runs: number,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, number[]> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const [name, variant] of Object.entries(variants)) {
      // A variant with its own environment (e.g. a setting that changes which start runs) uses it instead.
      const [argv, variantEnv] = Array.isArray(variant) ? [variant, env] : [variant.argv, variant.env];
      const start = process.hrtime.bigint();
      const result = spawnSync(argv[0]!, argv.slice(1), { env: variantEnv, stdio: ['ignore', 'ignore', 'pipe'] });
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
      samples[name]!.push(elapsed);
    }
  }
  return samples;
}

/** Operations per second of an async function over a fixed time window. */
export async function opsPerSecond(fn: () => Promise<unknown> | unknown, milliseconds = 1000): Promise<number> {
  for (let warm = 0; warm < 200; warm += 1) await fn();
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < milliseconds) {
    for (let batch = 0; batch < 50; batch += 1) await fn();
    count += 50;
  }
  return count / ((performance.now() - start) / 1000);
}

export function report(title: string, rows: Array<[string, string]>): void {
  console.log(`\n${title}`);
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

export const fmt = (value: number, digits = 1) => value.toFixed(digits);

/** min / median / max of repeated samples, as printed beside a ratio. */
export function spread(values: number[], digits = 1): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${fmt(sorted[0] ?? Number.NaN, digits)} / ${fmt(median(values), digits)} / ${fmt(sorted[sorted.length - 1] ?? Number.NaN, digits)}`;
}

/** The machine's load when a bench ran: other work on the same cores moves every figure. */
export function loadNote(): string {
  return `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;
}
