import type { BuildDeliveryOptions, OutgoingDelivery } from '../delivery/build-delivery.js';
import { buildDelivery } from '../delivery/build-delivery.js';
import { LedgerhookError } from '../errors.js';
import type { MockService } from '../mock/mock-service.js';
import type { ResolvedCheckConsumerOptions } from './check-consumer-options.js';
import type { CaseContext } from './consumer-cases.js';
import type { Tally } from './consumer-report.js';
import type { ReadWatch } from './read-watch.js';
import { compareOneDataset, DRIVEN_PATH, type Settled, type StateComparison, settle } from './settle.js';

/** One check's resolved options, and what its cases share. */
export interface ConsumerRun {
  options: ResolvedCheckConsumerOptions;
  service: MockService;
  userId: string;
  /** The consumer's state against the service, listing at most `listed` ids of each kind. */
  compare(document: unknown, listed?: number): StateComparison;
  reads: ReadWatch;
  /** The latest second (at most now) no delivery of the run was signed in yet; taken once returned. */
  freshIat(): number;
  /** Marks a second as used by a delivery. */
  useIat(iat: number): void;
}

/** A signed ENTITY_UPDATE naming the driven entity, as the service sends it (a fresh iat by default). */
export function signedDelivery(run: ConsumerRun, iat = run.freshIat()): Promise<OutgoingDelivery> {
  run.useIat(iat);
  const { signing, now } = run.options;
  const body = JSON.stringify({ userId: run.userId, type: 'ENTITY_UPDATE', entities: ['expense'] });
  const build: BuildDeliveryOptions = { body, secret: signing.secret, iat, now, headerName: signing.headerName };
  if (signing.verificationPrefix) build.verificationPrefix = signing.verificationPrefix;
  return buildDelivery(build);
}

/** One delivery sent and its answer counted; a network failure is counted, anything else thrown. */
export async function sendCounted(run: ConsumerRun, delivery: OutgoingDelivery, tally: Tally): Promise<void> {
  tally.sent += 1;
  run.reads.touch();
  try {
    const answer = await run.options.send(delivery);
    const status = String(answer.status);
    tally.statusCounts[status] = (tally.statusCounts[status] ?? 0) + 1;
    if (answer.status < 200 || answer.status >= 300)
      tally.firstRefusal ??= `${status} ${answer.excerpt.replace(/\s+/g, ' ').slice(0, 120)}`.trim();
  } catch (error) {
    if (!(error instanceof LedgerhookError) || error.code !== 'ERR_NETWORK') throw error;
    tally.networkErrors += 1;
    tally.firstNetworkError ??= error;
  } finally {
    run.reads.touch();
  }
}

/** Waits until the consumer's state equals the service's (by `compare`), or the settle time. */
export function settleRun(run: ConsumerRun, compare = (document: unknown) => run.compare(document)): Promise<Settled> {
  const { state, limits, now, sleep, signal } = run.options;
  return settle({ readState: state.read, compare, settleMs: limits.settleMs, now, sleep, signal });
}

/** What one case may do, over the run; its deliveries and notes are counted in `tally`. */
export function caseContext(run: ConsumerRun, tally: Tally, options: { first: boolean }): CaseContext {
  const { service } = run;
  const { signing, limits, now, sleep, signal: stop } = run.options;
  return {
    mutate: (spec) => service.mutate({ path: DRIVEN_PATH, ...spec }),
    delivery: (iat) => signedDelivery(run, iat),
    freshIat: () => run.freshIat(),
    send: async (delivery) => {
      await sendCounted(run, delivery, tally);
      // Nothing answered the very first delivery: the consumer is not there, not wrong; no wait.
      if (options.first && tally.firstNetworkError) throw tally.firstNetworkError;
    },
    settle: () => settleRun(run),
    settleDataset: (dataset, items) =>
      settleRun(run, (document) =>
        compareOneDataset(document, { userId: run.userId, stateLabel: run.options.state.label }, dataset, items),
      ),
    settleMs: limits.settleMs,
    withinSettle: async (promise) => {
      const timer = new AbortController();
      const signal = stop ? AbortSignal.any([stop, timer.signal]) : timer.signal;
      const deadline = sleep(limits.settleMs, signal).then(
        () => undefined,
        (error: unknown) => {
          if (stop?.aborted) throw error;
          return undefined;
        },
      );
      try {
        return await Promise.race([promise, deadline]);
      } finally {
        timer.abort();
      }
    },
    items: (dataset) => service.dataset(dataset.path, Object.fromEntries(dataset.filter)).data,
    pendingId: () => service.dataset(DRIVEN_PATH, { type: 'PENDING' }).data[0]?.id,
    reads: run.reads,
    setFaults: (faults) => service.setFaults(faults),
    nowSeconds: () => Math.floor(now() / 1000),
    toleranceSeconds: signing.toleranceSeconds,
    skewSeconds: signing.skewSeconds,
    burst: limits.burst,
    note: (text) => tally.notes.push(text),
    stopped: () => stop?.aborted === true,
  };
}
