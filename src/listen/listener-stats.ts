import type { ListenerEvent } from '../delivery/delivery-events.js';

export interface ListenerStats {
  deliveries: number;
  valid: number;
  invalid: number;
  unverified: number;
  /** Requests answered without being judged: wrong path or method, too large, no room, malformed, too slow. */
  refused: number;
  /** Of those, answered 503 because the listener had no room (the sender should retry). */
  busy: number;
  forwardFailures: number;
  /** Refused deliveries counted but not written to the capture file (past its refused bound). */
  refusedNotCaptured: number;
}

export function emptyStats(): ListenerStats {
  return {
    deliveries: 0,
    valid: 0,
    invalid: 0,
    unverified: 0,
    refused: 0,
    busy: 0,
    forwardFailures: 0,
    refusedNotCaptured: 0,
  };
}

/** A subscriber that keeps the counters of the listener's summary. */
export function countInto(stats: ListenerStats): (event: ListenerEvent) => void {
  return (event) => {
    if (event.type === 'refused') {
      stats.refused += 1;
      if (event.status === 503) stats.busy += 1;
    } else if (event.type === 'delivery') {
      const { verdict, forward, forwards } = event.delivery;
      stats.deliveries += 1;
      if (!event.recorded && verdict.valid === false) stats.refusedNotCaptured += 1;
      if (verdict.valid === true) stats.valid += 1;
      else if (verdict.valid === false) stats.invalid += 1;
      else stats.unverified += 1;
      // Apps that could not be reached before the answer (a route each); --retry's attempts are lines of their own.
      // Counted without a list per delivery: most deliveries are forwarded nowhere.
      if (forwards) for (const f of forwards) stats.forwardFailures += f.error === undefined ? 0 : 1;
      else if (forward?.error !== undefined) stats.forwardFailures += 1;
    }
  };
}
