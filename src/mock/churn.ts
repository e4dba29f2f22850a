import { isObject } from '../util/is-object.js';
import type { MutationResult, MutationSpec } from './mock-types.js';

/** Which datasets churn mutates, and how: mostly new and changed expenses, like a bank sync. */
const CHURN_PATHS = ['/expenses', '/expenses', '/expenses', '/bankTransfers', '/invoices', '/revenues'] as const;

/** The mutation of churn round `round` (1-based): deterministic, so a run can be repeated. */
export function churnMutation(round: number): MutationSpec {
  const path = CHURN_PATHS[(round - 1) % CHURN_PATHS.length] ?? '/expenses';
  return {
    path,
    create: 1 + (round % 3),
    update: 1 + (round % 2),
    delete: round % 4 === 0 ? 1 : 0,
    retype: path === '/expenses' && round % 2 === 0 ? 1 : 0,
  };
}

/** The timer edge: injected so that a test can fire rounds itself. */
export interface ChurnTimer {
  start(intervalMs: number, tick: () => void): () => void;
}

export const realChurnTimer: ChurnTimer = {
  start(intervalMs, tick) {
    const timer = setInterval(tick, intervalMs);
    return () => clearInterval(timer);
  },
};

/** Data that changes on its own every so many seconds; `set(undefined)` stops it. */
export function createChurn(
  mutate: (spec: MutationSpec) => MutationResult,
  timer: ChurnTimer = realChurnTimer,
): { set(seconds: number | undefined): void; stop(): void } {
  let stop: (() => void) | undefined;
  const halt = () => {
    stop?.();
    stop = undefined;
  };
  return {
    set(seconds) {
      halt();
      if (!seconds) return;
      let round = 0;
      stop = timer.start(seconds * 1000, () => {
        round += 1;
        mutate(churnMutation(round));
      });
    },
    stop: halt,
  };
}

/** The body of POST /__mock/churn: { "seconds": 2 } starts or changes churn, 0 or nothing stops it. */
export function churnSeconds(body: unknown): number | undefined {
  const value = isObject(body) ? body.seconds : undefined;
  const seconds = Number(value ?? 0);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
