import { cpus, loadavg } from 'node:os';
import { fmt, median } from './measure.js';

/**
 * Ratio rows: a measure and its floor (or peer) taken in the same run, interleaved round
 * by round so that machine noise hits both alike, then printed as min / median / max of each and of
 * the per-round ratio, with the goal and the machine's load beside it. A ratio of paired rounds is
 * steadier on a shared machine than a ratio of two medians taken apart.
 */

export interface Goal {
  /** 'higher': the measure should be at least `ratio` times the floor (a rate); 'lower': at most (a time). */
  better: 'higher' | 'lower';
  ratio: number;
  /** The worst round's ratio too must be at least (or, for 'lower', at most) this. */
  worst?: number | undefined;
}

/** The machine's load while a bench ran: other processes on the same cores skew every figure. */
export function loadNote(): string {
  const [one = 0, five = 0] = loadavg();
  return `load ${fmt(one, 2)} (1 min), ${fmt(five, 2)} (5 min) on ${cpus().length} cores`;
}

/**
 * Runs `measure` for every variant, round after round in turn; returns each variant's samples. With
 * `rotate`, each round starts with the next variant: none is always first (a warmer server) or last.
 */
export async function interleaved<Name extends string>(
  variants: readonly Name[],
  rounds: number,
  measure: (variant: Name, round: number) => Promise<number> | number,
  rotate = false,
): Promise<Record<Name, number[]>> {
  const samples = Object.fromEntries(variants.map((variant) => [variant, [] as number[]])) as Record<Name, number[]>;
  for (let round = 0; round < rounds; round += 1)
    for (let step = 0; step < variants.length; step += 1) {
      const variant = variants[((rotate ? round : 0) + step) % variants.length] as Name;
      samples[variant].push(await measure(variant, round));
    }
  return samples;
}

const spread = (values: number[], digits: number) =>
  `min ${fmt(Math.min(...values), digits)}  median ${fmt(median(values), digits)}  max ${fmt(Math.max(...values), digits)}`;

/**
 * Prints one row: the floor's and the measure's samples, then the per-round ratio with the goal
 * and whether the median meets it, e.g. `ratio 0.91x (min 0.88x, max 0.95x)  goal >= 0.85x  met`.
 */
export function reportRatio(
  title: string,
  floor: { label: string; samples: number[] },
  measure: { label: string; samples: number[] },
  goal: Goal | undefined,
  unit: string,
  digits = 0,
): void {
  const ratios = measure.samples.map((value, round) => value / (floor.samples[round] ?? NaN));
  const ratio = median(ratios);
  const worst = goal?.better === 'lower' ? Math.max(...ratios) : Math.min(...ratios);
  const within = (value: number, bound: number | undefined) =>
    bound === undefined || (goal?.better === 'higher' ? value >= bound : value <= bound);
  const met = goal === undefined ? undefined : within(ratio, goal.ratio) && within(worst, goal.worst);
  const width = Math.max(floor.label.length, measure.label.length);
  console.log(`\n${title}  [${measure.samples.length} interleaved rounds; ${loadNote()}]`);
  console.log(`  ${floor.label.padEnd(width)}  ${spread(floor.samples, digits)} ${unit}`);
  console.log(`  ${measure.label.padEnd(width)}  ${spread(measure.samples, digits)} ${unit}`);
  const verdict =
    goal === undefined
      ? 'no goal'
      : `goal ${goal.better === 'higher' ? '>=' : '<='} ${fmt(goal.ratio, 2)}x${goal.worst === undefined ? '' : ` (${goal.better === 'higher' ? 'min' : 'max'} ${fmt(goal.worst, 2)}x)`}  ${met ? 'met' : 'NOT met'}`;
  console.log(
    `  ratio ${fmt(ratio, 2)}x (min ${fmt(Math.min(...ratios), 2)}x, max ${fmt(Math.max(...ratios), 2)}x)  ${verdict}`,
  );
}
