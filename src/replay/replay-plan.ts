import type { ErrorReason } from '../error-reasons.js';
import type { CaptureRecord } from '../capture/capture-record.js';
import { LedgerhookError } from '../errors.js';
import { fullCapturedBody } from '../capture/capture-record.js';
import { originalVerdict, type OriginalVerdict } from './captured-delivery.js';

/** How a delivery goes out: re-signed with a fresh iat, or with the token it was captured with. */
export type ReplayMode = 're-signed' | 'as-captured';

/**
 * Which captured deliveries may be replayed, and how. Replay never launders a forgery by default:
 * only deliveries verified at receipt are sent; the rest need an explicit choice.
 */
export interface ReplayPolicy {
  /** Also send deliveries captured by a listener that had no secret (nothing was verified). */
  includeUnverified?: boolean | undefined;
  /** Also send deliveries the listener refused; they keep their original token... */
  includeRefused?: boolean | undefined;
  /** ...unless this is set too: then they are re-signed (they will verify, whatever they were). */
  resignRefused?: boolean | undefined;
  /** Send every delivery with its original token (nothing is re-signed). */
  asCaptured?: boolean | undefined;
}

export interface PlannedReplay {
  record: CaptureRecord;
  verdict: OriginalVerdict;
  mode: ReplayMode;
  body: Buffer;
}

export interface SkippedReplay {
  record: CaptureRecord;
  verdict: Exclude<OriginalVerdict, 'valid'>;
}

export interface ReplayPlan {
  send: PlannedReplay[];
  skipped: SkippedReplay[];
}

function policyError(message: string, reason: ErrorReason, details: Record<string, unknown> = {}): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', message, { details: { reason, ...details } });
}

function modeFor(verdict: OriginalVerdict, policy: ReplayPolicy): ReplayMode | undefined {
  if (verdict === 'refused') {
    if (!policy.includeRefused) return undefined;
    return policy.resignRefused && !policy.asCaptured ? 're-signed' : 'as-captured';
  }
  if (verdict === 'unverified' && !policy.includeUnverified) return undefined;
  return policy.asCaptured ? 'as-captured' : 're-signed';
}

const plural = (count: number, word: string) => `${count} ${word} deliver${count === 1 ? 'y' : 'ies'}`;

/**
 * Decides, per selected record, whether it is sent and how. Refuses a record whose body was
 * truncated at capture (only its head was kept) rather than ever sending the head.
 */
export function planReplay(records: readonly CaptureRecord[], policy: ReplayPolicy = {}): ReplayPlan {
  if (records.length === 0)
    throw policyError('no captured delivery matches: nothing to replay', 'nothing_selected', { selected: 0 });
  if (policy.resignRefused && !policy.includeRefused)
    throw policyError('re-signing refused deliveries needs them included first', 'resign_without_include');
  const plan: ReplayPlan = { send: [], skipped: [] };
  for (const record of records) {
    const verdict = originalVerdict(record);
    const mode = modeFor(verdict, policy);
    if (mode === undefined && verdict !== 'valid') plan.skipped.push({ record, verdict });
    else if (mode !== undefined) plan.send.push({ record, verdict, mode, body: fullCapturedBody(record) });
  }
  if (plan.send.length === 0) {
    const refused = plan.skipped.filter((s) => s.verdict === 'refused').length;
    const unverified = plan.skipped.length - refused;
    const parts = [
      refused > 0 ? plural(refused, 'refused') : '',
      unverified > 0 ? plural(unverified, 'unverified') : '',
    ]
      .filter(Boolean)
      .join(' and ');
    throw policyError(
      `nothing to replay: the selection holds only ${parts}, and replay sends deliveries verified at receipt unless told otherwise`,
      'nothing_verified_to_replay',
      { refused, unverified },
    );
  }
  return plan;
}
