import type { Dispatcher } from 'undici';
import { captureBody, type CaptureRecord } from '../capture/capture-record.js';
import { usageError } from '../errors.js';
import type { OutgoingDelivery } from '../delivery/build-delivery.js';
import { buildDelivery } from '../delivery/build-delivery.js';
import { sendDeliveries, type DeliveryOutcome, type SendSummary } from '../delivery/send-deliveries.js';

export interface ReplayOptions {
  records: readonly CaptureRecord[];
  url: URL;
  /** Re-sign with a fresh iat (default). Required unless asCaptured. */
  secret?: string;
  /** Header name for re-signed deliveries; default: the one each capture was received with. */
  headerName?: string;
  /** Send the original verification header unchanged (tests expiry handling). */
  asCaptured?: boolean;
  concurrency?: number;
  /** Pause between deliveries, in ms (only with concurrency 1, so that order is kept). */
  delayMs?: number;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  now?: () => number;
  onProgress?: (event: { record: CaptureRecord; outcome: DeliveryOutcome }) => void;
}

/** Headers that belong to the original connection, not to the delivery. */
const NOT_REPLAYED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'expect', 'te', 'trailer', 'upgrade']);

function replayDelivery(record: CaptureRecord, options: ReplayOptions): Promise<OutgoingDelivery> | OutgoingDelivery {
  const body = captureBody(record);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (!NOT_REPLAYED.has(name) && name !== record.headerName) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (options.asCaptured) {
    const original = record.headers[record.headerName];
    if (original !== undefined) headers[record.headerName] = Array.isArray(original) ? original[0]! : original;
    return { body, headers };
  }
  return buildDelivery({ body, secret: options.secret!, headerName: options.headerName ?? record.headerName, ...(options.now ? { now: options.now } : {}) })
    .then((signed) => ({ body, headers: { ...headers, ...signed.headers, ...(headers['content-type'] ? { 'content-type': headers['content-type'] } : {}) } }));
}

/**
 * Replays captured deliveries byte-exact. By default each is re-signed with a fresh iat so that
 * an old capture still verifies; asCaptured sends the original token unchanged.
 */
export async function replayDeliveries(options: ReplayOptions): Promise<{ outcomes: DeliveryOutcome[]; summary: SendSummary }> {
  if (options.records.length === 0) throw usageError('no captured delivery matches: nothing to replay');
  if (!options.asCaptured && !options.secret) throw usageError('re-signing needs the webhook secret (or use --as-captured to send the original tokens)');
  const concurrency = options.delayMs ? 1 : options.concurrency ?? 1;
  return sendDeliveries({
    url: options.url,
    count: options.records.length,
    concurrency,
    makeDelivery: async (index) => {
      if (options.delayMs && index > 0) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      return replayDelivery(options.records[index]!, options);
    },
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onProgress: ({ outcome }) => options.onProgress?.({ record: options.records[outcome.index]!, outcome }),
  });
}
