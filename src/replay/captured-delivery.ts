import type { CaptureRecord } from '../capture/capture-record.js';
import { LedgerhookError } from '../errors.js';

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

/** The instant the listener recorded, in ms; a capture that does not say is refused, never guessed. */
export function receivedAtMs(record: CaptureRecord): number {
  const ms = Date.parse(record.receivedAt);
  if (!Number.isFinite(ms))
    throw new LedgerhookError('ERR_USAGE', `delivery ${record.id}: receivedAt "${record.receivedAt}" is not a time`, {
      details: { reason: 'capture_bad_received_at', id: record.id },
    });
  return ms;
}
