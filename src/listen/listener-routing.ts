import type { AttemptRecord } from '../capture/attempt-record.js';
import type { CaptureSubscriber } from '../capture/capture-subscriber.js';
import { skippedLines } from '../capture/json-lines.js';
import { type CapturedPendingForward, readPendingForwards } from '../capture/pending-forwards.js';
import { verifyOriginalToken } from '../capture/original-token.js';
import type { DeliveryEvents } from '../delivery/delivery-events.js';
import { ForwardRetrier, type ForwardRetryOptions } from './forward-retries.js';
import { normaliseSecrets } from '@ledgerhook/webhooks/advanced';
import { signWebhook } from '@ledgerhook/webhooks';
import { withVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import type { HandleDeliveryOptions } from './handle-delivery.js';
import type { ResolvedListenerOptions } from './listener-options.js';
import { type ForwardEdge, forwardHeaders } from './route-forward.js';
import { type Route, uniqueNames } from './routes.js';

/** What the listener tells about forwards made after the answer (listen --retry). */
export type ForwardEvent =
  | { type: 'attempt'; attempt: AttemptRecord }
  /** At start: forwards the capture file still owed, resumed now, and those left for later (no room). */
  | {
      type: 'forwards-resumed';
      resumed: number;
      /** Owed, but more than the retrier holds at once: left in the file for a later run. */
      waiting: number;
      /** Owed to a route this run does not have (removed, renamed or at another URL): not sent. */
      dropped: number;
      /** Owed, but the original token does not verify with this run's secrets: not sent. */
      unverified: number;
      /** Lines of the capture file not read (not JSON, cut, or over the length bound). */
      skipped: number;
    };

/** What a capture file still owes, read before the port is bound. */
export interface OwedForwards {
  forwards: CapturedPendingForward[];
  /** Left out: the original token does not verify with the listener's secrets now. */
  unverified: number;
  /** Lines of the file not read (not JSON, cut, or over the length bound): counted, said once at start. */
  skipped: number;
}

/**
 * The forwards the capture file still owes (listen --retry), less those whose ORIGINAL token does not
 * verify with the listener's secrets now (original-token.ts: signature and body hash, not age): a
 * capture file is input like any other, and never gets a body of its choosing sent on or re-signed.
 * A listener without a secret verifies nothing, at receipt or here, and re-signs nothing.
 */
export async function readOwedForwards(
  path: string,
  options: Pick<HandleDeliveryOptions, 'secrets' | 'verificationPrefix'>,
): Promise<OwedForwards> {
  const lines = skippedLines('', 'the writer');
  const all = await readPendingForwards(path, lines);
  if (options.secrets.length === 0) return { forwards: all, unverified: 0, skipped: lines.count };
  const verdicts = new Map<CapturedPendingForward['record'], boolean>();
  const forwards: CapturedPendingForward[] = [];
  for (const forward of all) {
    let ok = verdicts.get(forward.record);
    if (ok === undefined) {
      ok = (await verifyOriginalToken(forward.record, options)).ok;
      verdicts.set(forward.record, ok);
    }
    if (ok) forwards.push(forward);
  }
  return { forwards, unverified: all.length - forwards.length, skipped: lines.count };
}

type EdgeFor = (url: URL) => ForwardEdge;

/**
 * How the listener forwards. One catch-all route with no `events` and no `retry` is today's proxy
 * (the app's answer relayed as it is); anything else goes through the routes (route-forward.ts).
 */
export function forwarding(
  options: Pick<ResolvedListenerOptions, 'forward' | 'retry'>,
  edgeFor: EdgeFor,
): Pick<HandleDeliveryOptions, 'forward' | 'routing'> {
  const { forward } = options;
  const all: Route[] = [
    ...(forward.to ? [{ name: 'default', selectors: [], url: forward.to }] : []),
    ...forward.routes,
  ];
  const [only] = all;
  if (all.length === 0) return {};
  if (all.length === 1 && only && only.selectors.length === 0 && !forward.events && !options.retry)
    return { forward: edgeFor(only.url) };
  const routes = uniqueNames(all).map((route) => ({ ...route, edge: edgeFor(route.url) }));
  return { routing: { routes, events: forward.events, background: Boolean(options.retry) } };
}

/**
 * The retrier, fed by every recorded delivery that is due at routes, and given what the capture
 * file still owed (earliest first, as many as it has room for; the rest stay owed in the file).
 */
export function startRetrier(
  options: Pick<ResolvedListenerOptions, 'retry' | 'onForward'>,
  handleOptions: HandleDeliveryOptions,
  capture: CaptureSubscriber | undefined,
  events: DeliveryEvents,
  { forwards: owed, unverified, skipped }: OwedForwards,
): { close(): Promise<number> } {
  const retry = options.retry;
  const retrier = new ForwardRetrier({
    scheduleMs: retry?.scheduleMs ?? [],
    maxPending: retry?.maxPending,
    maxPendingBytes: retry?.maxPendingBytes,
    sleep: retry?.sleep,
    now: handleOptions.now,
    record: capture ? (attempt) => capture.recordAttempt(attempt) : undefined,
    onAttempt: (attempt) => options.onForward?.({ type: 'attempt', attempt }),
    onRecordError: (error) => events.emit({ type: 'capture-error', message: error.message }),
    resign: retry?.resign ? resigner(handleOptions) : undefined,
  });
  const edges = new Map((handleOptions.routing?.routes ?? []).map((route) => [route.name, route.edge]));
  // A 202 is answered only once room is held for every route due (handle-delivery.ts): the limit is
  // exact however many deliveries are answered at once. Set before the listener serves anything.
  if (handleOptions.routing) handleOptions.routing.reserve = (count, bytes) => retrier.reserve(count, bytes);
  events.subscribe({
    hasRoom: () => retrier.hasRoom(),
    onEvent(event) {
      if (event.type !== 'delivery') return;
      const { delivery } = event;
      const due = delivery.forwarding ?? [];
      // Not recorded after all (the capture failed): the room held for it is given back.
      if (delivery.status >= 300 || delivery.verdict.valid === false) {
        retrier.release(due.length, delivery.body.length);
        return;
      }
      for (const { route } of due) {
        const edge = edges.get(route);
        if (!edge) {
          retrier.release(1, delivery.body.length);
          continue;
        }
        const headers = forwardHeaders(delivery.headers);
        const forward = { deliveryId: delivery.id, body: delivery.body, headers, route, edge, attempts: 0, dueAtMs: 0 };
        retrier.add(forward, true);
      }
    },
  });
  let waiting = 0;
  let dropped = 0;
  for (const forward of [...owed].sort((a, b) => a.dueAtMs - b.dueAtMs)) {
    // Resumed only to a route this run still has, at the same URL: a route removed or pointed
    // elsewhere since is not sent its old deliveries (they are said, and stay in the file).
    const edge = edges.get(forward.route);
    if (!edge || edge.url !== forward.url) {
      dropped += 1;
      continue;
    }
    if (!retrier.hasRoom()) {
      waiting += 1;
      continue;
    }
    retrier.add({ ...forward, headers: forwardHeaders(forward.headers), edge });
  }
  if (owed.length > 0 || unverified > 0 || skipped > 0)
    options.onForward?.({
      type: 'forwards-resumed',
      resumed: owed.length - waiting - dropped,
      waiting,
      dropped,
      unverified,
      skipped,
    });
  return { close: async () => (await retrier.close()) + waiting };
}

/** A later attempt's headers with a fresh token from the first secret (the prefix as configured). */
function resigner(options: HandleDeliveryOptions): ForwardRetryOptions['resign'] {
  const [first] = normaliseSecrets(options.secrets);
  if (!first) return undefined;
  const name = options.headerName.toLowerCase();
  return async (body, headers) => {
    const fresh = Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
    fresh[name] = withVerificationPrefix(await signWebhook(body, first.secret), options.verificationPrefix);
    return fresh;
  };
}
