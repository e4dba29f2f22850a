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
import type { Dispatcher } from 'undici';
import type { CaptureRecord } from '../capture/capture-record.js';
import { openCaptureSubscriber, type CaptureOptions, type CaptureSubscriber } from '../capture/capture-subscriber.js';
import {
  DEFAULT_HEADER_NAME,
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
} from '../defaults.js';
import { serve } from '../http/serve.js';
import type { SecretInput } from '@ledgerhook/webhooks';
import { assertUsableSecrets, normaliseSecrets } from '@ledgerhook/webhooks/advanced';
import { validateTolerance } from '@ledgerhook/webhooks/advanced';
import { BodyBudget } from '@ledgerhook/webhooks/node';
import { DeliveryEvents, type DeliverySubscriber, type ListenerEvent } from '../delivery/delivery-events.js';
import { postForwardEdge } from './forward-edge.js';
import type { ForwardRetryOptions } from './forward-retries.js';
import { type ForwardEvent, forwarding, readOwedForwards, startRetrier } from './listener-routing.js';
import type { Route } from './routes.js';
import type { RouteSelector } from './route-selector.js';
import { handleDelivery, preflight, type HandleDeliveryOptions } from './handle-delivery.js';
import { nodeDeliveryHandler } from './node-adapter.js';
import { answerClientError, starting, timeouts } from './listener-connections.js';
import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { countInto, emptyStats, type ListenerStats } from './listener-stats.js';
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';

export type { ForwardEvent, ListenerEvent, ListenerStats };

/**
 * Bodies in memory at once beyond each request's first 64 KiB (a real delivery is a few hundred
 * bytes, so only large bodies ever draw on it); more gets 503 with Retry-After. Kept small on
 * purpose: a large body is refused before it is read, which is what keeps a flood cheap.
 */
export const DEFAULT_MAX_BUFFERED_BODY_BYTES = 4 * 1024 * 1024;
const FREE_BODY_BYTES = 64 * 1024;
/** A large body waits this long at most for room in the budget, unread, before it is answered 503. */
const BODY_WAIT_MS = 5_000;

export interface ListenerOptions {
  port?: number | undefined;
  host?: string | undefined;
  /** Only this path is served (404 elsewhere); default: any path. */
  path?: string | undefined;
  /** Empty: verify nothing (each delivery is recorded with valid: null). */
  secrets?: readonly SecretInput[] | undefined;
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  toleranceSeconds?: number | undefined;
  /** Accept an iat further in the future than the tolerance (the verdict carries a warning). */
  allowFutureIat?: boolean | undefined;
  /** Answer 200 to invalid deliveries too (they are still recorded as invalid, and never synced). */
  acceptInvalid?: boolean | undefined;
  /** Opened once the port is bound, written before each answer, closed by close(). */
  capture?: CaptureOptions | undefined;
  /** Forward each accepted delivery byte-exact and answer with the app's status. */
  forwardTo?: URL | undefined;
  /** Routes by event (`routes.ts`); several, a selector, `events` or `retry` leave the one-proxy mode (see routing.ts). */
  routes?: readonly Route[] | undefined;
  /** Only deliveries matching one of these are forwarded. */
  events?: readonly RouteSelector[] | undefined;
  /** Forward after the answer and retry failures on this schedule; with `capture`, resumes what the file still owes. */
  retry?: ListenerRetryOptions | undefined;
  forwardTimeoutMs?: number | undefined;
  maxBodyBytes?: number | undefined;
  /** Whole-request time limit in ms (slow senders are cut off). */
  requestTimeoutMs?: number | undefined;
  /** A connection that sends nothing (before its first request, or after an answer) is closed after this. */
  idleTimeoutMs?: number | undefined;
  maxConnections?: number | undefined;
  maxBufferedBodyBytes?: number | undefined;
  now?: (() => number) | undefined;
  dispatcher?: Dispatcher | undefined;
  /** More subscribers to every delivery (an inspector, say). */
  subscribers?: readonly DeliverySubscriber[] | undefined;
  onEvent?: ((event: ListenerEvent) => void) | undefined;
  /** Forward attempts made after the answer (with `retry`), and what was resumed at start. */
  onForward?: ((event: ForwardEvent) => void) | undefined;
  /**
   * Traces and metrics (openTelemetry()): a span per delivery (verify, forward, capture as children,
   * and, through createWebhookSync's own option, the sync runs it causes); default none.
   */
  telemetry?: Telemetry | undefined;
  /** Every delivery not refused as forged (valid, or any when nothing is verified), after its answer. */
  onAccepted?: ((delivery: ReceivedDelivery) => void) | undefined;
}

export type ListenerRetryOptions = Pick<
  ForwardRetryOptions,
  'scheduleMs' | 'maxPending' | 'maxPendingBytes' | 'sleep'
> & {
  /**
   * Later attempts (retries, resumed forwards) carry a fresh token signed with the first secret
   * instead of the original one, which a receiver refuses once it is older than its tolerance.
   * Only verified deliveries are ever retried, so nothing refused as forged is re-signed.
   */
  resign?: boolean | undefined;
};

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
export async function startListener(options: ListenerOptions = {}): Promise<RunningListener> {
  assertUsableSecrets(normaliseSecrets(options.secrets));
  validateTolerance(options.toleranceSeconds);
  const stats = emptyStats();
  const events = new DeliveryEvents();
  const edgeFor = (url: URL) =>
    postForwardEdge(url, { timeoutMs: options.forwardTimeoutMs, dispatcher: options.dispatcher });
  // Read before the port is bound: a delivery arriving meanwhile must not look owed.
  const owed =
    options.retry && options.capture
      ? await readOwedForwards(options.capture.path, {
          secrets: options.secrets ?? [],
          verificationPrefix: options.verificationPrefix,
        })
      : { forwards: [], unverified: 0 };
  events.subscribe({ onEvent: countInto(stats) });
  const handleOptions: HandleDeliveryOptions = {
    path: options.path,
    secrets: options.secrets ?? [],
    headerName: options.headerName ?? DEFAULT_HEADER_NAME,
    verificationPrefix: options.verificationPrefix,
    toleranceSeconds: options.toleranceSeconds,
    allowFutureIat: options.allowFutureIat,
    acceptInvalid: options.acceptInvalid,
    ...forwarding(options, edgeFor),
    now: options.now ?? Date.now,
    newId: idGenerator(),
  };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Never below the largest body allowed, or such a body could never be received.
  const bufferedLimit = Math.max(options.maxBufferedBodyBytes ?? DEFAULT_MAX_BUFFERED_BODY_BYTES, maxBodyBytes);
  const adapter = nodeDeliveryHandler({
    preflight: (request) => preflight(request, handleOptions),
    handle: (request, telemetry) => handleDelivery(request, handleOptions, telemetry),
    events,
    budget: new BodyBudget(bufferedLimit, FREE_BODY_BYTES),
    bodyWaitMs: Math.min(BODY_WAIT_MS, options.requestTimeoutMs ?? BODY_WAIT_MS),
    maxBodyBytes,
    retryAfterSeconds: 1,
    telemetry: options.telemetry ?? noTelemetry,
  });
  // Until every subscriber (capture, retrier, sync) is attached, a request is answered 503 with
  // Retry-After: a 2xx must mean the delivery is recorded, and the capture file opens after the bind.
  let ready = false;
  const served = await serve((request, response) => (ready ? adapter.handler(request, response) : starting(response)), {
    port: options.port ?? DEFAULT_LISTEN_PORT,
    host: options.host,
    serverOptions: timeouts(options),
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
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
  for (const subscriber of options.subscribers ?? []) events.subscribe(subscriber);
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
