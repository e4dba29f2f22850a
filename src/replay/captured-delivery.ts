import { captureBody, type CaptureRecord } from '../capture/capture-record.js';
import { LedgerhookError } from '../errors.js';
import { isHeaderName, isHeaderValue } from '../util/header-name.js';

/** How a capture's original verdict reads: verified, refused (with the code) or never verified. */
export type OriginalVerdict = 'valid' | 'refused' | 'unverified';

export function originalVerdict(record: CaptureRecord): OriginalVerdict {
  if (record.verdict.valid === true) return 'valid';
  return record.verdict.valid === false ? 'refused' : 'unverified';
}

/** "valid", "refused: bad_signature" or "unverified": how every replay and verify line names it. */
export function describeVerdict(record: CaptureRecord): string {
  const verdict = originalVerdict(record);
  return verdict === 'refused' ? `refused: ${record.verdict.code ?? 'unknown'}` : verdict;
}

/**
 * The body of a captured delivery, refusing a record whose body was not kept in full: its head
 * alone would never verify, and sending it on would forward a different delivery than was received.
 */
export function fullCapturedBody(record: CaptureRecord): Buffer {
  if (record.bodyTruncated === true) {
    throw new LedgerhookError(
      'ERR_USAGE',
      `delivery ${record.id}: the body was not captured in full (only its first bytes of ${record.bodyBytes} were kept), so it can be neither verified nor replayed`,
      { details: { reason: 'capture_body_truncated', id: record.id, bodyBytes: record.bodyBytes } },
    );
  }
  return captureBody(record);
}

/** The instant the listener recorded, in ms; a capture that does not say is refused, never guessed. */
export function receivedAtMs(record: CaptureRecord): number {
  const ms = Date.parse(record.receivedAt);
  if (!Number.isFinite(ms))
    throw new LedgerhookError('ERR_USAGE', `delivery ${record.id}: receivedAt "${record.receivedAt}" is not a time`, {
      details: { reason: 'capture_bad_received_at', id: record.id },
    });
  return ms;
}

/**
 * The captured headers, keeping only what the client would send (names and values as isHeaderName
 * and isHeaderValue allow; a string, or strings for a repeated one): a capture file is plain JSON
 * that anyone can edit, and its values came off the network.
 */
export function capturedHeaderValues(record: CaptureRecord): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (!isHeaderName(name)) continue;
    if (typeof value === 'string') {
      if (isHeaderValue(value)) headers[name.toLowerCase()] = value;
    } else if (Array.isArray(value))
      headers[name.toLowerCase()] = value.filter((v): v is string => typeof v === 'string' && isHeaderValue(v));
  }
  return headers;
}
