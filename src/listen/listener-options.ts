import type { SecretInput } from '@ledgerhook/webhooks';
import { assertUsableSecrets, normaliseSecrets, validateTolerance } from '@ledgerhook/webhooks/advanced';
import type { Dispatcher } from 'undici';
import type { CaptureOptions } from '../capture/capture-subscriber.js';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_HEADER_NAME,
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
} from '../defaults.js';
import type { DeliverySubscriber, ListenerEvent } from '../delivery/delivery-events.js';
import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';
import type { ForwardRetryOptions } from './forward-retries.js';
import { DEFAULT_IDLE_TIMEOUT_MS } from './listener-connections.js';
import type { ForwardEvent } from './listener-routing.js';
import type { RouteSelector } from './route-selector.js';
import type { Route } from './routes.js';
import { refuseMovedOptions } from '../util/moved-options.js';

/*
 * What startListener (listener.ts) takes, resolved once: apart from it so that the routing and the
 * retrier (listener-routing.ts) are typed by the resolved shape without importing the listener.
 */

/**
 * Bodies in memory at once beyond each request's first 64 KiB (a real delivery is a few hundred
 * bytes, so only large bodies ever draw on it); more gets 503 with Retry-After. Kept small on
 * purpose: a large body is refused before it is read, which is what keeps a flood cheap.
 */
export const DEFAULT_MAX_BUFFERED_BODY_BYTES = 4 * 1024 * 1024;
/** Whole-request time limit: a sender this slow is cut off. */
export const DEFAULT_LISTEN_REQUEST_TIMEOUT_MS = 30_000;

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

export interface ListenerOptions {
  port?: number | undefined;
  host?: string | undefined;
  /** Only this path is served (404 elsewhere); default: any path. */
  path?: string | undefined;
  /** How each delivery is judged. */
  verification?:
    | {
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
      }
    | undefined;
  /** Opened once the port is bound, written before each answer, closed by close(). */
  capture?: CaptureOptions | undefined;
  /** Where accepted deliveries are forwarded, byte-exact. */
  forward?:
    | {
        /** Forward each accepted delivery and answer with the app's status. */
        to?: URL | undefined;
        /** Routes by event (`routes.ts`); several, a selector, `events` or `retry` leave the one-proxy mode (see routing.ts). */
        routes?: readonly Route[] | undefined;
        /** Only deliveries matching one of these are forwarded. */
        events?: readonly RouteSelector[] | undefined;
        /** Per forward attempt. */
        timeoutMs?: number | undefined;
      }
    | undefined;
  /** Forward after the answer and retry failures on this schedule; with `capture`, resumes what the file still owes. */
  retry?: ListenerRetryOptions | undefined;
  /** What one request, and all of them at once, may take. */
  limits?:
    | {
        maxBodyBytes?: number | undefined;
        /** Whole-request time limit in ms (slow senders are cut off). */
        requestTimeoutMs?: number | undefined;
        /** A connection that sends nothing (before its first request, or after an answer) is closed after this. */
        idleTimeoutMs?: number | undefined;
        maxConnections?: number | undefined;
        maxBufferedBodyBytes?: number | undefined;
      }
    | undefined;
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

/** startListener's options with every default applied and the secrets and tolerance checked. */
export interface ResolvedListenerOptions {
  port: number;
  host: string | undefined;
  path: string | undefined;
  verification: {
    secrets: readonly SecretInput[];
    headerName: string;
    verificationPrefix: string | undefined;
    toleranceSeconds: number;
    allowFutureIat: boolean;
    acceptInvalid: boolean;
  };
  capture: CaptureOptions | undefined;
  forward: {
    to: URL | undefined;
    routes: readonly Route[];
    events: readonly RouteSelector[] | undefined;
    timeoutMs: number;
  };
  retry: ListenerRetryOptions | undefined;
  limits: {
    maxBodyBytes: number;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    maxConnections: number;
    /** Never below maxBodyBytes. */
    maxBufferedBodyBytes: number;
  };
  now: () => number;
  dispatcher: Dispatcher | undefined;
  subscribers: readonly DeliverySubscriber[];
  onEvent: ((event: ListenerEvent) => void) | undefined;
  onForward: ((event: ForwardEvent) => void) | undefined;
  telemetry: Telemetry;
  onAccepted: ((delivery: ReceivedDelivery) => void) | undefined;
}

const MOVED_LISTENER_OPTIONS = {
  secrets: 'verification.secrets',
  headerName: 'verification.headerName',
  verificationPrefix: 'verification.verificationPrefix',
  toleranceSeconds: 'verification.toleranceSeconds',
  allowFutureIat: 'verification.allowFutureIat',
  acceptInvalid: 'verification.acceptInvalid',
  forwardTo: 'forward.to',
  routes: 'forward.routes',
  events: 'forward.events',
  forwardTimeoutMs: 'forward.timeoutMs',
  maxBodyBytes: 'limits.maxBodyBytes',
  requestTimeoutMs: 'limits.requestTimeoutMs',
  idleTimeoutMs: 'limits.idleTimeoutMs',
  maxConnections: 'limits.maxConnections',
  maxBufferedBodyBytes: 'limits.maxBufferedBodyBytes',
};

/** Resolved once, before the port is bound: a blank secret or a bad tolerance binds nothing. */
export function normalizeListenerOptions(options: ListenerOptions): ResolvedListenerOptions {
  refuseMovedOptions(options, MOVED_LISTENER_OPTIONS, 'startListener');
  const { verification = {}, forward = {}, limits = {} } = options;
  const secrets = verification.secrets ?? [];
  assertUsableSecrets(normaliseSecrets(secrets));
  const maxBodyBytes = limits.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    port: options.port ?? DEFAULT_LISTEN_PORT,
    host: options.host,
    path: options.path,
    verification: {
      secrets,
      headerName: verification.headerName ?? DEFAULT_HEADER_NAME,
      verificationPrefix: verification.verificationPrefix,
      toleranceSeconds: validateTolerance(verification.toleranceSeconds),
      allowFutureIat: verification.allowFutureIat ?? false,
      acceptInvalid: verification.acceptInvalid ?? false,
    },
    capture: options.capture,
    forward: {
      to: forward.to,
      routes: forward.routes ?? [],
      events: forward.events,
      timeoutMs: forward.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    },
    retry: options.retry,
    limits: {
      maxBodyBytes,
      requestTimeoutMs: limits.requestTimeoutMs ?? DEFAULT_LISTEN_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      maxConnections: limits.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      // Never below the largest body allowed, or such a body could never be received.
      maxBufferedBodyBytes: Math.max(limits.maxBufferedBodyBytes ?? DEFAULT_MAX_BUFFERED_BODY_BYTES, maxBodyBytes),
    },
    now: options.now ?? Date.now,
    dispatcher: options.dispatcher,
    subscribers: options.subscribers ?? [],
    onEvent: options.onEvent,
    onForward: options.onForward,
    telemetry: options.telemetry ?? noTelemetry,
    onAccepted: options.onAccepted,
  };
}
