import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { summariseLatencies, type LatencySummary } from '../util/percentiles.js';
import type { OutgoingDelivery } from './build-delivery.js';
import { postWebhook, type DeliveryResponse } from './post-webhook.js';

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
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  onProgress?: (event: SendProgressEvent) => void;
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
  firstNetworkError?: string;
}

/** Sends `count` deliveries with at most `concurrency` in flight, and summarises the answers. */
export async function sendDeliveries(options: SendDeliveriesOptions): Promise<{ outcomes: DeliveryOutcome[]; summary: SendSummary }> {
  const outcomes: DeliveryOutcome[] = new Array(options.count);
  let next = 0;
  let done = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.count && !options.signal?.aborted) {
      const index = next;
      next += 1;
      let outcome: DeliveryOutcome;
      try {
        const delivery = await options.makeDelivery(index);
        const response = await postWebhook({
          url: options.url,
          body: delivery.body,
          headers: delivery.headers,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        outcome = { index, ok: true, response };
      } catch (error) {
        if (!(error instanceof LedgerhookError) || error.code === 'ERR_USAGE' || error.code === 'ERR_ABORTED') throw error;
        outcome = { index, ok: false, error };
      }
      outcomes[index] = outcome;
      done += 1;
      options.onProgress?.({ type: 'delivered', outcome, done, total: options.count });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, options.count)) }, worker));
  const finished = outcomes.filter(Boolean);
  const statusCounts: Record<string, number> = {};
  const latencies: number[] = [];
  let firstNetworkError: string | undefined;
  for (const outcome of finished) {
    const key = outcome.ok ? String(outcome.response.status) : 'network';
    statusCounts[key] = (statusCounts[key] ?? 0) + 1;
    if (outcome.ok) latencies.push(outcome.response.latencyMs);
    else firstNetworkError ??= outcome.error.message;
  }
  const succeeded = finished.filter((outcome) => outcome.ok && outcome.response.status >= 200 && outcome.response.status < 300).length;
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
      ...(firstNetworkError ? { firstNetworkError } : {}),
    },
  };
}
