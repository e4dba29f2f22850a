import type { ParsedWebhookBody } from '@ledgerhook/webhooks';
import { judge, parseIfWorthIt } from './delivery-verdict.js';
import type { SecretInput } from '@ledgerhook/webhooks';
import {
  combinedAnswer,
  type ForwardEdge,
  type ForwardRoute,
  forwardHeaders,
  forwardTo,
  type Forwarded,
} from './route-forward.js';
import { deliveryNames, type Routing, routesFor } from './routes.js';
import type { DeliveryVerdict, HeaderRecord, ReceivedDelivery, RefusedRequest } from '../delivery/received-delivery.js';
import { isoTime } from '../util/iso-time.js';
import { noTelemetry, type Telemetry, type TelemetrySpan, traced } from '../telemetry/telemetry.js';

export interface DeliveryRequest {
  method: string;
  /** The request target as received (path and query). */
  path: string;
  headers: HeaderRecord;
  body: Buffer;
}

export type { ForwardEdge } from './route-forward.js';

export interface HandleDeliveryOptions {
  /** Only this path is served (404 elsewhere); default: any path. */
  path?: string | undefined;
  /** Empty: verify nothing (each delivery is recorded with valid: null). */
  secrets: readonly SecretInput[];
  headerName: string;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  toleranceSeconds?: number | undefined;
  /** Accept an iat further in the future than the tolerance (with a warning). */
  allowFutureIat?: boolean | undefined;
  /** Answer 200 to invalid deliveries too (they are still recorded as invalid). */
  acceptInvalid?: boolean | undefined;
  /** One catch-all route (the app's answer is relayed, as a proxy). */
  forward?: ForwardEdge | undefined;
  /**
   * Several routes, selected by event; with `background` nothing is forwarded here (a retrier does it
   * after the answer), and `reserve` holds the retrier's room for the routes due before 202 is
   * answered (false: no room, 503).
   */
  routing?:
    | {
        routes: readonly ForwardRoute[];
        events?: Routing['events'];
        background?: boolean;
        reserve?: ((forwards: number, bodyBytes: number) => boolean) | undefined;
      }
    | undefined;
  now: () => number;
  newId: (nowMs: number) => string;
  /** Traces and metrics (openTelemetry()); default none. */
  telemetry?: Telemetry | undefined;
}

export interface HandledDelivery {
  status: number;
  /** The JSON answer, or the bytes of the app's own answer when listen relays it (a proxy). */
  body: unknown;
  headers?: Record<string, string> | undefined;
  /** Set when the request was a delivery (judged, whatever the verdict). */
  delivery?: ReceivedDelivery | undefined;
  /** Set when the request was refused before it was judged. */
  refused?: RefusedRequest | undefined;
}

/** The checks that need no body: a request failing them is answered without reading it. */
export function preflight(
  request: { method: string; path: string },
  options: Pick<HandleDeliveryOptions, 'path'>,
): HandledDelivery | undefined {
  const refuse = (status: number, reason: string, headers?: Record<string, string>): HandledDelivery => ({
    status,
    body: { error: reason },
    headers,
    refused: { method: request.method, path: request.path, status, reason },
  });
  if (options.path !== undefined && request.path.split('?')[0] !== options.path)
    return refuse(404, `nothing here; deliveries go to ${options.path}`);
  if (request.method !== 'POST') return refuse(405, 'webhook deliveries are POST requests', { allow: 'POST' });
  return undefined;
}

/**
 * What the sender gets once the app answered: the app's status AND body (listen is a proxy), or, when
 * the app's answer was too large to relay whole, listen's own 502 saying so. Never the app's status
 * with listen's body.
 */
function relayed(forwarded: Forwarded): Pick<HandledDelivery, 'status' | 'body' | 'headers'> {
  const { result, answer } = forwarded;
  if (result.error !== undefined) return { status: 502, body: { error: 'forward_failed', message: result.error } };
  if (!answer || answer.tooLarge)
    return {
      status: 502,
      body: {
        error: 'forward_answer_too_large',
        message: `the app answered ${result.status} with a body too large to relay`,
      },
    };
  return {
    status: result.status ?? 502,
    body: answer.body,
    headers: answer.contentType ? { 'content-type': answer.contentType } : {},
  };
}

interface Routed {
  answer?: Pick<HandledDelivery, 'status' | 'body' | 'headers'> | undefined;
  fields: Pick<ReceivedDelivery, 'forward' | 'forwards' | 'forwarding'>;
}

/**
 * Forwards an accepted delivery: to the one catch-all (its answer relayed, as before routes), to
 * every route that takes it at once (200 only when all answered 2xx), or, in the background mode
 * (retries), nowhere yet: the routes due are only named, and the sender gets 2xx once it is recorded.
 */
async function forwardRoutes(
  request: DeliveryRequest,
  parsed: ParsedWebhookBody,
  verdict: DeliveryVerdict,
  options: HandleDeliveryOptions,
  telemetry: Telemetry,
): Promise<Routed | undefined> {
  const headers = () => forwardHeaders(request.headers);
  if (options.forward) {
    const forwarded = await tracedForward(telemetry, options.forward, request.body, headers());
    return { answer: relayed(forwarded), fields: { forward: forwarded.result } };
  }
  const routing = options.routing;
  if (!routing) return undefined;
  const routes = routesFor(routing, deliveryNames(parsed));
  if (routes.length === 0) return { fields: {} };
  // A forgery kept by acceptInvalid is forwarded once at most (as before routes), never owed retries.
  if (routing.background && verdict.valid === false) return { fields: {} };
  if (routing.background && routing.reserve && !routing.reserve(routes.length, request.body.length))
    return {
      answer: {
        status: 503,
        body: { error: 'busy', message: 'too many forwards wait for a retry; retry later' },
        headers: { 'retry-after': '1' },
      },
      fields: {},
    };
  if (routing.background)
    return {
      answer: { status: 202, body: { received: true, forwarding: routes.map((route) => route.name) } },
      fields: { forwarding: routes.map((route) => ({ route: route.name, url: route.url.href })) },
    };
  const sent = await Promise.all(
    routes.map((route) => tracedForward(telemetry, route.edge, request.body, headers(), route.name)),
  );
  const results = sent.map((forwarded) => forwarded.result);
  const [only] = sent;
  if (sent.length === 1 && only) return { answer: relayed(only), fields: { forward: only.result, forwards: results } };
  return { answer: combinedAnswer(results), fields: { forwards: results } };
}

/** What a delivery refused by its verdict is answered: 400 with the reason (the spec's sample receiver). */
export function refusedAnswer(verdict: DeliveryVerdict): Pick<HandledDelivery, 'status' | 'body'> {
  return { status: 400, body: { error: verdict.code, message: verdict.message } };
}

/** The verdict on the verify span and in the deliveries metric (only when traced). */
function countVerdict(telemetry: Telemetry, span: TelemetrySpan, verdict: DeliveryVerdict): void {
  const valid = verdict.valid === true ? 'valid' : verdict.valid === false ? 'invalid' : 'unverified';
  const facts = { 'ledgerhook.verdict': valid, 'ledgerhook.verdict.code': verdict.code };
  span.setAttributes(facts);
  telemetry.add('ledgerhook.deliveries', 1, facts);
}

/** One forward attempt, a span of the delivery's trace when traced. */
function tracedForward(
  telemetry: Telemetry,
  edge: ForwardEdge,
  body: Buffer,
  headers: Record<string, string>,
  route?: string,
): Promise<Forwarded> {
  if (!telemetry.enabled) return forwardTo(edge, body, headers, route);
  return traced(
    telemetry,
    'ledgerhook.forward',
    route === undefined ? undefined : { 'ledgerhook.route': route },
    async (span) => {
      const forwarded = await forwardTo(edge, body, headers, route);
      // The app's status and listen's own words on a failure; never the app's body.
      span.setAttributes({
        'http.response.status_code': forwarded.result.status,
        'ledgerhook.forward.error': forwarded.result.error,
      });
      return forwarded;
    },
    'client',
  );
}

/**
 * The listener's whole decision for one request, with no transport in it: verify (the spec's sample
 * receiver answers 400 when invalid), forward an accepted delivery through the injected edge, and
 * say what to answer. The caller records the delivery and then answers.
 */
export async function handleDelivery(
  request: DeliveryRequest,
  options: HandleDeliveryOptions,
  /** The recorder scoped to this delivery's span (the listener's); default options.telemetry. */
  telemetry: Telemetry = options.telemetry ?? noTelemetry,
): Promise<HandledDelivery> {
  const refused = preflight(request, options);
  if (refused) return refused;
  const receivedAtMs = options.now();
  const verifying = telemetry.span('ledgerhook.verify');
  const headerName = options.headerName.toLowerCase();
  const verdict = await judge(request, options, receivedAtMs, headerName);
  if (telemetry.enabled) countVerdict(telemetry, verifying, verdict);
  verifying.end();
  const accepted = verdict.valid !== false || Boolean(options.acceptInvalid);
  const parsed = parseIfWorthIt(request.body, verdict);
  // No forward and no routes (listen --capture alone): no async step to await.
  const routed =
    accepted && (options.forward || options.routing)
      ? await forwardRoutes(request, parsed, verdict, options, telemetry)
      : undefined;
  let answer: Pick<HandledDelivery, 'status' | 'body' | 'headers'> = { status: 200, body: { received: true } };
  if (!accepted) answer = refusedAnswer(verdict);
  else if (routed?.answer) answer = routed.answer;
  const { status, body, headers } = answer;
  const delivery: ReceivedDelivery = {
    id: options.newId(receivedAtMs),
    receivedAtMs,
    receivedAt: isoTime(receivedAtMs),
    method: request.method,
    path: request.path,
    headers: request.headers,
    headerName,
    body: request.body,
    parsed,
    verdict,
    status,
    ...routed?.fields,
  };
  return { status, body, headers, delivery };
}
