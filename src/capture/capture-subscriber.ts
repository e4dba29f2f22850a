import type { AttemptRecord } from './attempt-record.js';
import type { CaptureRecord } from './capture-record.js';
import type { DeliverySubscriber } from '../delivery/delivery-events.js';
import { captureRecordFrom, type CaptureRecordOptions } from './capture-from-delivery.js';
import { CaptureWriter, type CaptureWriterOptions } from './capture-writer.js';

/** Lines waiting for the disk beyond this many bytes make the listener answer 503 (the sender retries). */
export const DEFAULT_CAPTURE_QUEUE_BYTES = 16 * 1024 * 1024;

export interface CaptureOptions extends CaptureRecordOptions, CaptureWriterOptions {
  /** The JSON Lines file deliveries are appended to. */
  path: string;
  maxQueueBytes?: number | undefined;
  /** Applied to each delivery's line before it is written (redaction): nothing before it reaches the disk. */
  redact?: ((record: CaptureRecord) => CaptureRecord) | undefined;
}

export type CaptureSubscriber = DeliverySubscriber & {
  readonly writer: CaptureWriter;
  /** A forward attempt (listen --retry), in the same ordered stream of lines as the deliveries. */
  recordAttempt(attempt: AttemptRecord): Promise<void>;
};

/**
 * The capture file's one owner: opens it, writes each delivery's line before the listener
 * answers, and closes it when the listener closes.
 */
export async function openCaptureSubscriber(options: CaptureOptions): Promise<CaptureSubscriber> {
  const writer = await CaptureWriter.open(options.path, { sync: options.sync });
  const maxQueueBytes = options.maxQueueBytes ?? DEFAULT_CAPTURE_QUEUE_BYTES;
  return {
    writer,
    record: (delivery) => {
      const record = captureRecordFrom(delivery, options);
      return writer.append(options.redact ? options.redact(record) : record);
    },
    recordAttempt: (attempt) => writer.append(attempt),
    hasRoom: () => writer.queuedBytes < maxQueueBytes,
    close: () => writer.close(),
  };
}
