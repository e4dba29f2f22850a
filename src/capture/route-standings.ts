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

/** `replay --failed`: some route's last attempt failed for good (a delivery still waiting for a retry is not one). */
export function lastAttemptFailed(record: CaptureRecord): boolean {
  return routeStandings(record).some((standing) => standing.outcome === 'failed');
}
