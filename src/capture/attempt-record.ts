import { isObject } from '../util/is-object.js';

/**
 * One forward attempt of `listen --retry`, appended to the capture file after the delivery's own
 * line and linked to it by `deliveryId`. The last attempt of a route says where it stands:
 * `delivered`, `failed` (for good: a 4xx, the schedule spent, or no room to wait) or `retrying`
 * (another attempt is due at `nextAt`: a later listen with the same file resumes it).
 */
export interface AttemptRecord {
  kind: 'attempt';
  deliveryId: string;
  route: string;
  url: string;
  /** 1 for the first try. */
  attempt: number;
  /** ISO 8601 UTC, when the attempt was sent. */
  at: string;
  status?: number;
  latencyMs?: number;
  error?: string;
  outcome: AttemptOutcome;
  nextAt?: string;
  /** Sent with a fresh token (`--retry-resign`) rather than the one the delivery came with. */
  resigned?: boolean;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'retrying';

export function isAttemptRecord(value: unknown): value is AttemptRecord {
  return (
    isObject(value) &&
    value.kind === 'attempt' &&
    typeof value.deliveryId === 'string' &&
    typeof value.route === 'string' &&
    typeof value.url === 'string' &&
    typeof value.attempt === 'number' &&
    typeof value.at === 'string' &&
    (value.outcome === 'delivered' || value.outcome === 'failed' || value.outcome === 'retrying') &&
    (value.nextAt === undefined || typeof value.nextAt === 'string')
  );
}

/** Where one route of a delivery stands: its last attempt (or the forward recorded in the delivery's line). */
export interface RouteStanding {
  route: string;
  url: string;
  attempts: number;
  outcome: AttemptOutcome | 'due';
  status?: number | undefined;
  error?: string | undefined;
  nextAt?: string | undefined;
}
