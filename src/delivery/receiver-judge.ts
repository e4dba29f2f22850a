import { LedgerhookError } from '../errors.js';
import type { ReceiverCaseKind } from './receiver-case-table.js';

/**
 * What counts as "rejected". By default any 4xx, as the spec's sample receiver answers 400. A receiver
 * that answers 2xx and drops what it refuses is checked by a marker its developer names: the statuses
 * it uses for a refusal, or a text its refusal's body carries.
 */
export interface RejectMarker {
  /** Status codes (400) and classes (4xx); default ['4xx']. */
  statuses?: readonly string[] | undefined;
  /** Text found in the answer's first 2 KiB that marks a refusal, whatever the status. */
  bodyContains?: string | undefined;
}

export interface CompiledRejectMarker {
  statuses: readonly string[];
  bodyContains?: string | undefined;
  isRejection(status: number, body: string): boolean;
}

const STATUS_SPEC = /^([1-5])(xx|\d\d)$/i;

export function compileRejectMarker(marker: RejectMarker = {}): CompiledRejectMarker {
  const statuses = (marker.statuses?.length ? marker.statuses : ['4xx']).map((s) => s.trim().toLowerCase());
  for (const spec of statuses)
    if (!STATUS_SPEC.test(spec))
      throw new LedgerhookError(
        'ERR_USAGE',
        `"${spec.slice(0, 20)}" is not a status code or class; give codes like 400 or 202, or classes like 4xx`,
        { details: { reason: 'invalid_reject_status', value: spec } },
      );
  const matches = (status: number) =>
    statuses.some((spec) =>
      spec.endsWith('xx') ? Math.floor(status / 100) === Number(spec[0]) : Number(spec) === status,
    );
  if (!marker.bodyContains && Array.from({ length: 100 }, (_, i) => 200 + i).every(matches))
    throw new LedgerhookError(
      'ERR_USAGE',
      'with every 2xx counted as a rejection, a valid delivery could never be told apart; name the refusal statuses (e.g. 202) or a body marker',
      { details: { reason: 'reject_status_covers_2xx' } },
    );
  const bodyContains = marker.bodyContains || undefined;
  return {
    statuses,
    bodyContains,
    isRejection: (status, body) => matches(status) || (bodyContains !== undefined && body.includes(bodyContains)),
  };
}

const NOUN: Record<ReceiverCaseKind, string> = {
  valid: 'a valid delivery',
  forged: 'a forged delivery',
  altered: 'an altered delivery',
  invalid: 'an invalid delivery',
};

const describeMarker = (marker: CompiledRejectMarker) =>
  [
    marker.statuses.join('/'),
    ...(marker.bodyContains ? [`a body with ${JSON.stringify(marker.bodyContains)}`] : []),
  ].join(' or ');

export function judgeAnswer(
  expected: 'accept' | 'reject',
  kind: ReceiverCaseKind,
  status: number,
  body: string,
  marker: CompiledRejectMarker,
): { verdict: 'pass' | 'fail'; detail: string } {
  const rejected = marker.isRejection(status, body);
  const accepted = status >= 200 && status < 300 && !rejected;
  if (expected === 'accept') {
    if (accepted) return { verdict: 'pass', detail: 'accepted' };
    return {
      verdict: 'fail',
      detail: rejected
        ? `a valid delivery was refused (${status}); it must be accepted`
        : `a valid delivery was answered ${status}; it must be accepted with 2xx`,
    };
  }
  if (rejected) return { verdict: 'pass', detail: 'rejected' };
  const rule = `it must be rejected (${describeMarker(marker)})`;
  if (accepted) return { verdict: 'fail', detail: `accepted ${NOUN[kind]} (${status}); ${rule}` };
  if (status >= 500)
    return { verdict: 'fail', detail: `answered ${status}: the receiver failed instead of rejecting; ${rule}` };
  return { verdict: 'fail', detail: `answered ${status}; ${rule}` };
}
