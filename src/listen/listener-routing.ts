import type { AttemptRecord } from '../capture/attempt-record.js';
import type { CaptureSubscriber } from '../capture/capture-subscriber.js';
import type { CapturedPendingForward } from '../capture/pending-forwards.js';
import type { DeliveryEvents } from '../delivery/delivery-events.js';
import { ForwardRetrier } from './forward-retries.js';
import type { HandleDeliveryOptions } from './handle-delivery.js';
import type { ListenerOptions } from './listener.js';
import { type ForwardEdge, forwardHeaders } from './route-forward.js';
import { type Route, uniqueNames } from './routes.js';

/** What the listener tells about forwards made after the answer (listen --retry). */
export type ForwardEvent =
  | { type: 'attempt'; attempt: AttemptRecord }
  /** At start: forwards the capture file still owed, resumed now, and those left for later (no room). */
  | { type: 'forwards-resumed'; resumed: number; waiting: number };

type EdgeFor = (url: URL) => ForwardEdge;

/**
 * How the listener forwards. One catch-all route with no `events` and no `retry` is today's proxy
 * (the app's answer relayed as it is); anything else goes through the routes (route-forward.ts).
 */
export function forwarding(
  options: ListenerOptions,
  edgeFor: EdgeFor,
): Pick<HandleDeliveryOptions, 'forward' | 'routing'> {
  const all: Route[] = [
    ...(options.forwardTo ? [{ name: 'default', selectors: [], url: options.forwardTo }] : []),
    ...(options.routes ?? []),
  ];
  const [only] = all;
  if (all.length === 0) return {};
  if (all.length === 1 && only && only.selectors.length === 0 && !options.events && !options.retry)
    return { forward: edgeFor(only.url) };
  const routes = uniqueNames(all).map((route) => ({ ...route, edge: edgeFor(route.url) }));
  return { routing: { routes, events: options.events, background: Boolean(options.retry) } };
}

/** A capture file's URL is read back, not trusted blindly: only http(s) is forwarded to. */
function storedUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The retrier, fed by every recorded delivery that is due at routes, and given what the capture
 * file still owed (earliest first, as many as it has room for; the rest stay owed in the file).
 */
export function startRetrier(
  options: ListenerOptions,
  handleOptions: HandleDeliveryOptions,
  capture: CaptureSubscriber | undefined,
  events: DeliveryEvents,
  owed: readonly CapturedPendingForward[],
  edgeFor: EdgeFor,
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
  });
  const edges = new Map((handleOptions.routing?.routes ?? []).map((route) => [route.name, route.edge]));
  events.subscribe({
    hasRoom: () => retrier.hasRoom(),
    onEvent(event) {
      if (event.type !== 'delivery' || event.delivery.status >= 300) return;
      const { delivery } = event;
      for (const { route } of delivery.forwarding ?? []) {
        const edge = edges.get(route);
        if (!edge) continue;
        const headers = forwardHeaders(delivery.headers);
        retrier.add({ deliveryId: delivery.id, body: delivery.body, headers, route, edge, attempts: 0, dueAtMs: 0 });
      }
    },
  });
  let waiting = 0;
  for (const forward of [...owed].sort((a, b) => a.dueAtMs - b.dueAtMs)) {
    const known = edges.get(forward.route);
    const url = known?.url === forward.url ? undefined : storedUrl(forward.url);
    const edge = known?.url === forward.url ? known : url && edgeFor(url);
    if (!edge || !retrier.hasRoom()) {
      waiting += 1;
      continue;
    }
    retrier.add({ ...forward, headers: forwardHeaders(forward.headers), edge });
  }
  if (owed.length > 0) options.onForward?.({ type: 'forwards-resumed', resumed: owed.length - waiting, waiting });
  return { close: async () => (await retrier.close()) + waiting };
}
