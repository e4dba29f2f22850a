import type { Dispatcher } from 'undici';
import { type ErrorReason, LedgerhookError } from '../errors.js';
import { summariseLatencies, type LatencySummary } from '../util/percentiles.js';
import { runPool } from '../util/worker-pool.js';
import type { OutgoingDelivery } from './build-delivery.js';
import { postWebhook, type DeliveryResponse } from './post-webhook.js';
import { reasonOf } from '../error-reasons.js';

export type DeliveryOutcome =
  | { index: number; ok: true; response: DeliveryResponse }
  | { index: number; ok: false; error: LedgerhookError };

export type SendProgressEvent = { type: 'delivered'; outcome: DeliveryOutcome; done: number; total: number };

export interface SendDeliveriesOptions {
  url: URL;
  count: number;
  concurrency: number;
  /** Builds delivery `index`; called just before it is sent, so each gets a fresh iat. */
  makeDelivery: (index: number) => Promise<OutgoingDelivery>;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: SendProgressEvent) => void) | undefined;
}

export interface SendSummary {
  sent: number;
  /** By status code, plus "network" for deliveries that got no answer. */
  statusCounts: Record<string, number>;
  succeeded: number;
  failed: number;
  networkErrors: number;
  latencyMs: LatencySummary;
  elapsedMs: number;
  firstNetworkError?: string | undefined;
  /** The stable reason of that first failure (connection_refused, host_not_found, no_answer, …). */
  firstNetworkReason?: ErrorReason | undefined;
}

/**
 * What a run of deliveries means as an outcome, for send-sample and replay alike: none answered is
 * the first failure as the network error it was (its reason and the origin the advice keys on), so
 * that a refused connection is `connection_refused` whether one delivery was sent or many; some
 * answered but not all with 2xx is a failed check, counted, with the first network error when there
 * was one. `what` qualifies the deliveries in the message ("replayed").
 */
export function sendSummaryError(summary: SendSummary, url: URL, what = ''): LedgerhookError | undefined {
  if (summary.sent === 0) return undefined;
  if (summary.networkErrors >= summary.sent)
    return new LedgerhookError('ERR_NETWORK', summary.firstNetworkError ?? 'no delivery got an answer', {
      details: { reason: summary.firstNetworkReason ?? 'network_failed', origin: url.origin },
    });
  if (summary.failed === 0) return undefined;
  const deliveries = `${what === '' ? '' : `${what} `}${summary.sent === 1 ? 'delivery' : 'deliveries'}`;
  return new LedgerhookError(
    'ERR_CHECK_FAILED',
    `${summary.failed} of ${summary.sent} ${deliveries} ${summary.failed === 1 ? 'was' : 'were'} not answered with 2xx${summary.firstNetworkError ? ` (${summary.firstNetworkError})` : ''}`,
  );
}

/** Sends `count` deliveries with at most `concurrency` in flight, and summarises the answers. */
export async function sendDeliveries(
  options: SendDeliveriesOptions,
): Promise<{ outcomes: DeliveryOutcome[]; summary: SendSummary }> {
  const outcomes: Array<DeliveryOutcome | undefined> = new Array(options.count);
  let done = 0;
  const started = performance.now();
  await runPool(
    options.count,
    options.concurrency,
    async (index) => {
      let outcome: DeliveryOutcome;
      try {
        const delivery = await options.makeDelivery(index);
        const response = await postWebhook({
          url: options.url,
          body: delivery.body,
          headers: delivery.headers,
          timeoutMs: options.timeoutMs,
          dispatcher: options.dispatcher,
          signal: options.signal,
        });
        outcome = { index, ok: true, response };
      } catch (error) {
        if (!(error instanceof LedgerhookError) || error.code === 'ERR_USAGE' || error.code === 'ERR_ABORTED')
          throw error;
        outcome = { index, ok: false, error };
      }
      outcomes[index] = outcome;
      done += 1;
      options.onProgress?.({ type: 'delivered', outcome, done, total: options.count });
    },
    () => options.signal?.aborted === true,
  );
  const finished = outcomes.filter((outcome): outcome is DeliveryOutcome => outcome !== undefined);
  const statusCounts: Record<string, number> = {};
  const latencies: number[] = [];
  let firstNetworkError: string | undefined;
  let firstNetworkReason: ErrorReason | undefined;
  for (const outcome of finished) {
    const key = outcome.ok ? String(outcome.response.status) : 'network';
    statusCounts[key] = (statusCounts[key] ?? 0) + 1;
    if (outcome.ok) latencies.push(outcome.response.latencyMs);
    else if (firstNetworkError === undefined) {
      firstNetworkError = outcome.error.message;
      firstNetworkReason = reasonOf(outcome.error);
    }
  }
  const succeeded = finished.filter(
    (outcome) => outcome.ok && outcome.response.status >= 200 && outcome.response.status < 300,
  ).length;
  const networkErrors = statusCounts.network ?? 0;
  return {
    outcomes: finished,
    summary: {
      sent: finished.length,
      statusCounts,
      succeeded,
      failed: finished.length - succeeded,
      networkErrors,
      latencyMs: summariseLatencies(latencies),
      elapsedMs: performance.now() - started,
      firstNetworkError,
      firstNetworkReason,
    },
  };
}
