/**
 * listen/: the local receiver: each delivery's verdict, its capture, forwarding and routes.
 *   listener.ts             startListener: the server and what it is wired to (this file)
 *   node-adapter.ts         node:http in and out: headers once, the body within a shared budget
 *   handle-delivery.ts      a request to its answer, pure; delivery-verdict.ts its signature, then body
 *   listener-connections.ts the connection policy (timeouts, what a request it cannot take gets)
 *   routes.ts               where accepted deliveries go; route-selector.ts which ones a route takes
 *   route-forward.ts        a delivery passed on to the app; forward-edge.ts the default edge, over HTTP
 *   forward-retries.ts      listen --retry: forwards after the answer, on a schedule;
 *                           listener-routing.ts wires them, with what a capture still owes
 *   listener-stats.ts       the running counts: deliveries by verdict, refused, busy, forward failures
 */
import { randomBytes } from 'node:crypto';
import type { CaptureRecord } from '../capture/capture-record.js';
import { openCaptureSubscriber, type CaptureSubscriber } from '../capture/capture-subscriber.js';
import { serve } from '../http/serve.js';
import { BodyBudget } from '@ledgerhook/webhooks/node';
import { DeliveryEvents, type ListenerEvent } from '../delivery/delivery-events.js';
import { postForwardEdge } from './forward-edge.js';
import { type ForwardEvent, forwarding, readOwedForwards, startRetrier } from './listener-routing.js';
import { handleDelivery, preflight, type HandleDeliveryOptions } from './handle-delivery.js';
import { nodeDeliveryHandler } from './node-adapter.js';
import { answerClientError, starting, timeouts } from './listener-connections.js';
import { countInto, emptyStats, type ListenerStats } from './listener-stats.js';
import { type ListenerOptions, normalizeListenerOptions } from './listener-options.js';

export type { ListenerOptions, ListenerRetryOptions } from './listener-options.js';
export type { ForwardEvent, ListenerEvent, ListenerStats };

const FREE_BODY_BYTES = 64 * 1024;
/** A large body waits this long at most for room in the budget, unread, before it is answered 503. */
const BODY_WAIT_MS = 5_000;

export interface RunningListener {
  url: string;
  port: number;
  stats: ListenerStats;
  /** Lines written to the capture file so far. */
  readonly captured: number;
  /** With retries: forwards still due when close() finished (in the capture file as `retrying`). */
  readonly forwardsPending: number;
  /** Stops accepting, lets in-flight deliveries and attempts finish, then closes the capture file. */
  close(): Promise<void>;
  /**
   * Appends a line to the capture file (a no-op without one): how a delivery sent from here, such as
   * an edited replay, is recorded beside what arrived, through the file's one writer.
   */
  appendCapture(record: CaptureRecord): Promise<void>;
}

/** Unique ids without a random draw per delivery: a random prefix per listener, then a counter. */
function idGenerator(): (now: number) => string {
  const prefix = randomBytes(3).toString('hex');
  let counter = 0;
  return (now) => `dlv_${now.toString(36)}${prefix}${(counter++).toString(36).padStart(3, '0')}`;
}

/**
 * A local webhook receiver: verifies every delivery like the spec's sample receiver (400 with the
 * reason when invalid), records it before answering, optionally forwards it to the developer's
 * app, and stays small and up under abuse (bounded bodies, queue, connections and idle time).
 */
export async function startListener(input: ListenerOptions = {}): Promise<RunningListener> {
  const options = normalizeListenerOptions(input);
  const { verification, forward, limits } = options;
  const stats = emptyStats();
  const events = new DeliveryEvents();
  const edgeFor = (url: URL) => postForwardEdge(url, { timeoutMs: forward.timeoutMs, dispatcher: options.dispatcher });
  // Read before the port is bound: a delivery arriving meanwhile must not look owed.
  const owed =
    options.retry && options.capture
      ? await readOwedForwards(options.capture.path, verification)
      : { forwards: [], unverified: 0, skipped: 0 };
  events.subscribe({ onEvent: countInto(stats) });
  const handleOptions: HandleDeliveryOptions = {
    path: options.path,
    ...verification,
    ...forwarding(options, edgeFor),
    now: options.now,
    newId: idGenerator(),
  };
  const adapter = nodeDeliveryHandler({
    preflight: (request) => preflight(request, handleOptions),
    handle: (request, telemetry) => handleDelivery(request, handleOptions, telemetry),
    events,
    budget: new BodyBudget(limits.maxBufferedBodyBytes, FREE_BODY_BYTES),
    bodyWaitMs: Math.min(BODY_WAIT_MS, limits.requestTimeoutMs),
    maxBodyBytes: limits.maxBodyBytes,
    retryAfterSeconds: 1,
    telemetry: options.telemetry,
  });
  // Until every subscriber (capture, retrier, sync) is attached, a request is answered 503 with
  // Retry-After: a 2xx must mean the delivery is recorded, and the capture file opens after the bind.
  let ready = false;
  const served = await serve((request, response) => (ready ? adapter.handler(request, response) : starting(response)), {
    port: options.port,
    host: options.host,
    serverOptions: timeouts(limits),
    maxConnections: limits.maxConnections,
  });
  served.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    stats.refused += 1;
    answerClientError(error, socket);
  });
  let capture: CaptureSubscriber | undefined;
  try {
    // Opened only once the port is ours: a taken port leaves no capture file behind.
    if (options.capture)
      capture = await openCaptureSubscriber(options.capture, ({ firstLimit, perSecond, maxBytes }) =>
        events.emit({ type: 'capture-limit', limit: firstLimit ?? 'rate', perSecond, maxBytes }),
      );
  } catch (error) {
    await served.close();
    throw error;
  }
  if (capture) events.subscribe(capture);
  const retrier = options.retry ? startRetrier(options, handleOptions, capture, events, owed) : undefined;
  for (const subscriber of options.subscribers) events.subscribe(subscriber);
  events.subscribe({ onEvent: options.onEvent, onAccepted: options.onAccepted });
  ready = true;
  let closing: Promise<void> | undefined;
  let forwardsPending = 0;
  const running: RunningListener = {
    url: `${served.origin}${options.path ?? '/'}`,
    port: served.port,
    stats,
    close() {
      closing ??= served
        .close(() => adapter.drain())
        .then(async () => {
          forwardsPending = (await retrier?.close()) ?? 0;
        })
        .then(() => events.close());
      return closing;
    },
    get forwardsPending() {
      return forwardsPending;
    },
    get captured() {
      return capture?.writer.written ?? 0;
    },
    appendCapture: async (record) => {
      await capture?.writer.append(record);
    },
  };
  return running;
}
