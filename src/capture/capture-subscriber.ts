/**
 * capture/: the capture file, one JSON line per delivery, written before the listener answers and
 * read back with selectors.
 *   capture-subscriber.ts   the file's one owner, a subscriber to every delivery (this file)
 *   capture-writer.ts       whole lines appended with O_APPEND, grouped per turn of the event loop;
 *                           append-record.ts for a file another process may be writing
 *   capture-record.ts       a line's shape; capture-from-delivery.ts builds it from a delivery
 *   refused-bound.ts        how many refused deliveries are written, per second and in all
 *   attempt-record.ts       listen --retry's forward attempts; route-standings.ts where each route
 *                           stands, pending-forwards.ts what a stopped listener still owes
 *   read-captures.ts        a capture read back and selected; capture-lines.ts its lines, a damaged
 *                           one skipped with a warning
 *   original-token.ts       the one rule before anything captured is re-signed
 */
import type { AttemptRecord } from './attempt-record.js';
import type { CaptureRecord } from './capture-record.js';
import type { DeliverySubscriber } from '../delivery/delivery-events.js';
import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { captureRecordFrom, type CaptureRecordOptions } from './capture-from-delivery.js';
import { CaptureWriter, type CaptureWriterOptions } from './capture-writer.js';
import { RefusedBound, type RefusedBoundOptions } from './refused-bound.js';

/** Lines waiting for the disk beyond this many bytes make the listener answer 503 (the sender retries). */
export const DEFAULT_CAPTURE_QUEUE_BYTES = 16 * 1024 * 1024;

export interface CaptureOptions extends CaptureRecordOptions, CaptureWriterOptions {
  /** The JSON Lines file deliveries are appended to. */
  path: string;
  maxQueueBytes?: number | undefined;
  /** Applied to each delivery's line before it is written (redaction): nothing before it reaches the disk. */
  redact?: ((record: CaptureRecord) => CaptureRecord) | undefined;
  /** How much of the refused (forged) deliveries is written (refused-bound.ts); the rest is counted. */
  refused?: RefusedBoundOptions | undefined;
}

export type CaptureSubscriber = DeliverySubscriber & {
  readonly writer: CaptureWriter;
  /** Refused deliveries written and counted against the bound. */
  readonly refused: RefusedBound;
  /** A forward attempt (listen --retry), in the same ordered stream of lines as the deliveries. */
  recordAttempt(attempt: AttemptRecord): Promise<void>;
};

/**
 * The capture file's one owner: opens it, writes each delivery's line before the listener
 * answers, and closes it when the listener closes. A refused delivery past the refused bound is
 * counted, not written (`record` says 'skipped'); `onRefusedLimit` is told the first time.
 */
export async function openCaptureSubscriber(
  options: CaptureOptions,
  onRefusedLimit?: (bound: RefusedBound) => void,
): Promise<CaptureSubscriber> {
  const writer = await CaptureWriter.open(options.path, { sync: options.sync });
  const maxQueueBytes = options.maxQueueBytes ?? DEFAULT_CAPTURE_QUEUE_BYTES;
  const refused = new RefusedBound(options.refused);
  // Redaction applies to every line, accepted or refused, before it reaches the writer.
  const lineOf = (delivery: ReceivedDelivery): CaptureRecord => {
    const record = captureRecordFrom(delivery, options);
    return options.redact ? options.redact(record) : record;
  };
  const recordRefused = async (delivery: ReceivedDelivery): Promise<'skipped' | undefined> => {
    // The rate first: past it, a forgery costs no record built, no Base64, no write.
    if (refused.takeRate(delivery.receivedAtMs) && (await writer.appendRefused(lineOf(delivery), refused)))
      return undefined;
    if (refused.skipped === 1) onRefusedLimit?.(refused);
    return 'skipped';
  };
  return {
    writer,
    refused,
    // Accepted deliveries go straight to the writer (no extra promise on the path that answers).
    record: (delivery) =>
      delivery.verdict.valid === false ? recordRefused(delivery) : writer.append(lineOf(delivery)),
    recordAttempt: (attempt) => writer.append(attempt),
    hasRoom: () => writer.queuedBytes < maxQueueBytes,
    close: () => writer.close(),
  };
}
