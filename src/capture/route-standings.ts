import type { AttemptOutcome, RouteStanding } from './attempt-record.js';
import type { CapturedForward, CaptureRecord } from './capture-record.js';

const succeeded = (forward: CapturedForward) =>
  forward.error === undefined && forward.status !== undefined && forward.status >= 200 && forward.status < 300;

/**
 * Where each route of a captured delivery stands: from the forwards in its own line (answered
 * before the sender was), or the routes it was due at and the attempt lines that followed.
 */
export function routeStandings(record: CaptureRecord): RouteStanding[] {
  const standings = new Map<string, RouteStanding>();
  const forwards = record.forwards ?? (record.forward ? [record.forward] : []);
  for (const forward of forwards) {
    const route = forward.route ?? 'default';
    const outcome: AttemptOutcome = succeeded(forward) ? 'delivered' : 'failed';
    standings.set(route, {
      route,
      url: forward.url,
      attempts: 1,
      outcome,
      status: forward.status,
      error: forward.error,
    });
  }
  for (const { route, url } of record.forwarding ?? [])
    standings.set(route, { route, url, attempts: 0, outcome: 'due' });
  for (const attempt of record.attempts ?? []) {
    const { route, url, status, error, nextAt, outcome } = attempt;
    standings.set(route, { route, url, attempts: attempt.attempt, outcome, status, error, nextAt });
  }
  return [...standings.values()];
}

/** Forwards failed for good (`replay --failed`), or still owed: due with no attempt yet, or waiting for a retry. */
export type ForwardState = 'failed' | 'owed';

/** The routes of a captured delivery whose forward is in that state (at `route` only, when given). */
export function standingsIn(record: CaptureRecord, state: ForwardState, route?: string): RouteStanding[] {
  return routeStandings(record).filter(
    (standing) =>
      (route === undefined || standing.route === route) &&
      (state === 'failed'
        ? standing.outcome === 'failed'
        : standing.outcome === 'due' || standing.outcome === 'retrying'),
  );
}
