import type { BuildDeliveryOptions, OutgoingDelivery } from '../delivery/build-delivery.js';
import { buildDelivery } from '../delivery/build-delivery.js';
import { LedgerhookError } from '../errors.js';
import type { MockService } from '../mock/mock-service.js';
import type { CaseContext } from './consumer-cases.js';
import type { Tally } from './consumer-report.js';
import type { ReadWatch } from './read-watch.js';
import { compareOneDataset, DRIVEN_PATH, type Settled, type StateComparison, settle } from './settle.js';
import type { StateReader } from './state-reader.js';

/** Sends one delivery to the consumer; the default POSTs it to `to`. */
export type DeliverySender = (delivery: OutgoingDelivery) => Promise<{ status: number; excerpt: string }>;

/** One check's settings and edges, resolved once, and what its cases share. */
export interface ConsumerRun {
  service: MockService;
  userId: string;
  secret: string;
  headerName: string;
  verificationPrefix: string | undefined;
  settleMs: number;
  burst: number;
  toleranceSeconds: number;
  skewSeconds: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal: AbortSignal | undefined;
  readState: StateReader;
  stateLabel: string;
  send: DeliverySender;
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
  const body = JSON.stringify({ userId: run.userId, type: 'ENTITY_UPDATE', entities: ['expense'] });
  const build: BuildDeliveryOptions = { body, secret: run.secret, iat, now: run.now, headerName: run.headerName };
  if (run.verificationPrefix) build.verificationPrefix = run.verificationPrefix;
  return buildDelivery(build);
}

/** One delivery sent and its answer counted; a network failure is counted, anything else thrown. */
export async function sendCounted(run: ConsumerRun, delivery: OutgoingDelivery, tally: Tally): Promise<void> {
  tally.sent += 1;
  run.reads.touch();
  try {
    const answer = await run.send(delivery);
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
  const { readState, settleMs, now, sleep, signal } = run;
  return settle({ readState, compare, settleMs, now, sleep, signal });
}

/** What one case may do, over the run; its deliveries and notes are counted in `tally`. */
export function caseContext(run: ConsumerRun, tally: Tally, options: { first: boolean }): CaseContext {
  const { service } = run;
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
    settleDataset: (dataset, items) => settleRun(run, (document) => compareOneDataset(document, run, dataset, items)),
    settleMs: run.settleMs,
    withinSettle: async (promise) => {
      const timer = new AbortController();
      const signal = run.signal ? AbortSignal.any([run.signal, timer.signal]) : timer.signal;
      const deadline = run.sleep(run.settleMs, signal).then(
        () => undefined,
        (error: unknown) => {
          if (run.signal?.aborted) throw error;
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
    nowSeconds: () => Math.floor(run.now() / 1000),
    toleranceSeconds: run.toleranceSeconds,
    skewSeconds: run.skewSeconds,
    burst: run.burst,
    note: (text) => tally.notes.push(text),
    stopped: () => run.signal?.aborted === true,
  };
}
