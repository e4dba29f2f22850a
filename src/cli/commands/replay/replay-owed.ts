import { appendCaptureRecord } from '../../../capture/append-record.js';
import type { AttemptRecord } from '../../../capture/attempt-record.js';
import { standingsIn } from '../../../capture/route-standings.js';
import type { DeliveryOutcome } from '../../../delivery/send-deliveries.js';
import type { PlannedReplay } from '../../../replay/replay.js';
import { roundMs } from '../../../util/percentiles.js';

/**
 * `replay --owed`: each forward sent from here is an attempt of its route like listen's own, in the
 * same capture file, so that it is owed no more (a later listen does not resume it, `captures list
 * --owed` no longer lists it) and one that failed is found by `replay --failed`. Kept in memory
 * while the replay runs and written in one append at the end, also when it is stopped.
 */
export function owedAttempts(route: string, url: URL, now: () => number = Date.now) {
  const attempts: AttemptRecord[] = [];
  return {
    add(planned: PlannedReplay, outcome: DeliveryOutcome): void {
      const { record } = planned;
      const [owed] = standingsIn(record, 'owed', route);
      const ok = outcome.ok && outcome.response.status >= 200 && outcome.response.status < 300;
      const attempt: AttemptRecord = {
        kind: 'attempt',
        deliveryId: record.id,
        route,
        url: url.href,
        attempt: (owed?.attempts ?? 0) + 1,
        at: new Date(now()).toISOString(),
        outcome: ok ? 'delivered' : 'failed',
      };
      if (outcome.ok) {
        attempt.status = outcome.response.status;
        attempt.latencyMs = roundMs(outcome.response.latencyMs);
      } else attempt.error = outcome.error.message;
      if (planned.mode === 're-signed') attempt.resigned = true;
      attempts.push(attempt);
    },
    get count(): number {
      return attempts.length;
    },
    write: (file: string) => appendCaptureRecord(file, attempts),
  };
}
