import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { bodySha256Base64 } from '@ledgerhook/webhooks';
import { type CapturedForward, type CaptureRecord, noteBodyNames } from './capture-record.js';

/** How much of a refused delivery's body is kept by default: enough to see what it was. */
export const REFUSED_BODY_HEAD_BYTES = 4096;

export interface CaptureRecordOptions {
  /** Keep the whole body of refused (forged) deliveries too; default: the head, its length and hash. */
  refusedBodies?: boolean | undefined;
}

/**
 * The capture line of a delivery. A refused delivery is hostile by definition: a flood of large
 * forged bodies must not fill the disk, so only its head is kept, with the length and hash of
 * the whole body.
 */
export function captureRecordFrom(delivery: ReceivedDelivery, options: CaptureRecordOptions = {}): CaptureRecord {
  const { verdict, parsed, body } = delivery;
  // A refused delivery whose signature verified (a body_mismatch, say) is kept whole when small, so
  // that `captures show` and the inspector can explain it later; a forgery keeps only its head.
  const keepWhole = verdict.signatureVerified === true && body.length <= DIAGNOSE_MAX_BODY_BYTES;
  const truncate =
    verdict.valid === false && !options.refusedBodies && !keepWhole && body.length > REFUSED_BODY_HEAD_BYTES;
  const record: CaptureRecord = {
    id: delivery.id,
    receivedAt: delivery.receivedAt,
    method: delivery.method,
    path: delivery.path,
    headers: delivery.headers,
    headerName: delivery.headerName,
    body: (truncate ? body.subarray(0, REFUSED_BODY_HEAD_BYTES) : body).toString('base64'),
    bodyBytes: body.length,
    verdict: { valid: verdict.valid, status: delivery.status },
  };
  if (truncate) {
    record.bodyTruncated = true;
    record.bodySha256 = verdict.bodySha256 ?? bodySha256Base64(body);
  }
  if (verdict.code !== undefined) record.verdict.code = verdict.code;
  if (verdict.message !== undefined) record.verdict.message = verdict.message;
  if (verdict.warnings.length > 0) record.verdict.warnings = verdict.warnings;
  noteBodyNames(record, parsed);
  if (delivery.forward) record.forward = forwardOf(delivery.forward);
  if (delivery.forwards) record.forwards = delivery.forwards.map(forwardOf);
  if (delivery.forwarding) record.forwarding = delivery.forwarding;
  return record;
}

function forwardOf(forward: NonNullable<ReceivedDelivery['forward']>): CapturedForward {
  const out: CapturedForward =
    forward.route === undefined ? { url: forward.url } : { route: forward.route, url: forward.url };
  if (forward.status !== undefined) out.status = forward.status;
  if (forward.latencyMs !== undefined) out.latencyMs = forward.latencyMs;
  if (forward.error !== undefined) out.error = forward.error;
  return out;
}
