import type { OutgoingDelivery } from '../delivery/build-delivery.js';
import type { ListAnswer } from '../mock/answer-gate.js';
import type { MockItem } from '../mock/entity-generators.js';
import type { MockFaults, MutationResult, MutationSpec } from '../mock/mock-types.js';
import { plural } from '../util/plural.js';
import { runPool } from '../util/worker-pool.js';
import type { ConsumerCaseId } from './consumer-case-table.js';
import { RACE_CASE_STEPS } from './race-cases.js';
import { QUIET_MS, type ReadWatch } from './read-watch.js';
import type { Settled } from './settle.js';

/** A dataset as a list request names it: a path and its filter, sorted by name. */
export type DatasetName = Pick<ListAnswer, 'path' | 'filter'>;

/** What a case may do: change the service's data, send deliveries, turn faults on, and wait. */
export interface CaseContext {
  /** Changes the driven entity's data on the service (one instant per call). */
  mutate(spec: Omit<MutationSpec, 'path'>): MutationResult;
  /**
   * A signed ENTITY_UPDATE naming the driven entity, as the service sends it. `iat` defaults to a
   * fresh one: the latest second no earlier delivery of the run was signed in (so, not a duplicate).
   */
  delivery(iat?: number): Promise<OutgoingDelivery>;
  /** The latest second (at most now) no delivery of the run was signed in yet; taken once returned. */
  freshIat(): number;
  /**
   * Sends one delivery; resolves with its answer (counted, never retried: the spec promises no
   * retries). Sending and the answer both count as activity of the consumer (`reads.idle`).
   */
  send(delivery: OutgoingDelivery): Promise<void>;
  /** Waits until the consumer's state equals the service's, or the settle deadline. */
  settle(): Promise<Settled>;
  /** Waits until the consumer's copy of one dataset holds exactly `items` (the other datasets aside). */
  settleDataset(dataset: DatasetName, items: readonly MockItem[]): Promise<Settled>;
  settleMs: number;
  /** `promise`'s value, or undefined once the settle time has passed. */
  withinSettle<T>(promise: Promise<T>): Promise<T | undefined>;
  /** The items of one dataset on the service now. */
  items(dataset: DatasetName): MockItem[];
  /** An expense that is PENDING now (in every dataset of expenses a consumer may keep), if there is one. */
  pendingId(): number | undefined;
  /** The consumer's reads, as the mock answers them; holds one for a race case. */
  reads: ReadWatch;
  /** Replaces the service's faults (undefined: none); the counts grow as faults are injected. */
  setFaults(faults: MockFaults | undefined): { rateLimited: number };
  nowSeconds(): number;
  toleranceSeconds: number;
  skewSeconds: number;
  burst: number;
  /** Adds a sentence to the case's detail. */
  note(text: string): void;
  /** True once the check is being stopped (Ctrl-C): a burst hands out no more deliveries. */
  stopped(): boolean;
}

/** Deliveries of a burst in flight at once: enough to overlap the consumer's syncs, not a flood of sockets. */
const BURST_CONCURRENCY = 32;
/**
 * The changes of a burst, in turn: creates and updates happen while deliveries are in flight. No
 * deletion and no retype: items leave a dataset in retype-out-of-filter only, so that a consumer which
 * ignores deletedIds fails that case (its difference can never be repaired) and no earlier one.
 */
const BURST_CHANGES: ReadonlyArray<Omit<MutationSpec, 'path'>> = [{ create: 1 }, { update: 1 }, { update: 2 }];
/** Updates enough to need two pages at the spec's recommended limit of 100: the 429 lands mid-read. */
const RATE_LIMITED_UPDATES = 120;

/**
 * Each case's steps. Every case ends with the wait for convergence (its own last step), so that a
 * case with a wait in the middle (duplicate-after-change) and one that restores the service after it
 * (rate-limited) read the same as the others.
 */
export const CONSUMER_CASE_STEPS: Record<ConsumerCaseId, (ctx: CaseContext) => Promise<Settled>> = {
  async baseline(ctx) {
    await ctx.send(await ctx.delivery());
    return ctx.settle();
  },

  async 'duplicate-immediate'(ctx) {
    ctx.mutate({ create: 1, update: 1 });
    const delivery = await ctx.delivery();
    // Both at once: the second copy arrives while the first may still be being handled.
    await Promise.all([ctx.send(delivery), ctx.send(delivery)]);
    return ctx.settle();
  },

  async 'duplicate-after-change'(ctx) {
    ctx.mutate({ update: 1 });
    const delivery = await ctx.delivery();
    await ctx.send(delivery);
    // Converged first, so that the change below can only reach the store through the second copy.
    const first = await ctx.settle();
    if (!first.converged) {
      ctx.note('the first copy did not converge; the data was not changed and the copy not sent again');
      return first;
    }
    ctx.mutate({ update: 2, create: 1 });
    // The very same bytes and token: a service that notifies twice within one second sends exactly this.
    await ctx.send(delivery);
    return ctx.settle();
  },

  async 'reverse-order'(ctx) {
    const [first, second] = [ctx.freshIat(), ctx.freshIat()];
    ctx.mutate({ update: 1 });
    const earlier = await ctx.delivery(Math.min(first, second));
    ctx.mutate({ create: 1, update: 1 });
    const later = await ctx.delivery(Math.max(first, second));
    await ctx.send(later);
    await ctx.send(earlier);
    return ctx.settle();
  },

  async burst(ctx) {
    // Each change is followed by its delivery while earlier ones are still in flight, as a busy user's
    // changes are: a sync that started before a change must be followed by one that sees it.
    await runPool(
      ctx.burst,
      BURST_CONCURRENCY,
      async (index) => {
        ctx.mutate(BURST_CHANGES[index % BURST_CHANGES.length] ?? { update: 1 });
        // Signed now, as the service would: deliveries of one second are the same bytes, as they would be.
        await ctx.send(await ctx.delivery(ctx.nowSeconds()));
      },
      ctx.stopped,
    );
    return ctx.settle();
  },

  ...RACE_CASE_STEPS,

  async 'lost-webhook'(ctx) {
    // A read an earlier case left running (a follow-up) would bring the change and pass for a reconcile.
    const idle = await ctx.reads.idle(ctx.settleMs);
    const before = ctx.reads.reads;
    ctx.mutate({ update: 1, create: 1 });
    const settled = await ctx.settle();
    const reads = ctx.reads.reads - before;
    if (!idle) ctx.note(`the consumer never stopped reading the service for ${QUIET_MS / 1000} s: it polls`);
    ctx.note(
      settled.converged
        ? `your consumer caught a change no webhook announced, reading the service on its own (${plural(reads, 'list request')} after the change): it polls or reconciles`
        : 'no webhook announced the change: only a reconcile (a full read compared with the store) catches this',
    );
    return settled;
  },

  async 'retype-out-of-filter'(ctx) {
    const result = ctx.mutate({ retype: 1, delete: 1 });
    if (result.retyped.length === 0) ctx.note('the service had no PENDING expense left to retype');
    await ctx.send(await ctx.delivery());
    const settled = await ctx.settle();
    if (!settled.datasets.some((key) => /[?&]type=PENDING(&|$)/.test(key)))
      ctx.note('the state has no type=PENDING dataset, so only the deletion was exercised, not the filter');
    return settled;
  },

  async 'rate-limited'(ctx) {
    // One request per second per token: the first page of a read passes, the next one is answered 429.
    const counts = ctx.setFaults({ rateLimit: { requests: 1, windowSeconds: 1 } });
    try {
      ctx.mutate({ update: RATE_LIMITED_UPDATES });
      await ctx.send(await ctx.delivery());
      const settled = await ctx.settle();
      ctx.note(
        counts.rateLimited === 0
          ? 'no request was answered 429 (the consumer made at most one API request per second)'
          : `the API answered 429 ${counts.rateLimited} ${counts.rateLimited === 1 ? 'time' : 'times'}`,
      );
      return settled;
    } finally {
      ctx.setFaults(undefined);
    }
  },

  async 'near-expiry'(ctx) {
    ctx.mutate({ update: 1 });
    await ctx.send(await ctx.delivery(ctx.nowSeconds() - ctx.toleranceSeconds + ctx.skewSeconds));
    return ctx.settle();
  },
};
