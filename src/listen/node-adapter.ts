import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '@ledgerhook/webhooks/node';
import type { BodyBudget } from '@ledgerhook/webhooks/node';
import type { DeliveryEvents } from '../delivery/delivery-events.js';
import { type DeliveryRequest, type HandledDelivery, refusedAnswer } from './handle-delivery.js';
import type { HeaderRecord, ReceivedDelivery } from '../delivery/received-delivery.js';
import { readRequestBody } from '@ledgerhook/webhooks/node';
import { attachTrace, type Telemetry } from '../telemetry/telemetry.js';

export interface NodeAdapterOptions {
  /** Checks that need no body (path, method). */
  preflight(request: { method: string; path: string }): HandledDelivery | undefined;
  /** `telemetry` is scoped to the delivery's span: what the handler traces is its child. */
  handle(request: DeliveryRequest, telemetry: Telemetry): Promise<HandledDelivery>;
  events: DeliveryEvents;
  budget: BodyBudget;
  /**
   * How long a body that does not fit the budget now waits its turn, unread (its connection paused),
   * before it is answered 503: a flood of large bodies is then read a few at a time, in order, instead
   * of refused and re-sent at once, which kept the accept queue full and new connections waiting.
   */
  bodyWaitMs: number;
  maxBodyBytes: number;
  /** Seconds a sender told "no room" should wait before retrying. */
  retryAfterSeconds: number;
  /** One span per delivery read (`noTelemetry`: none). */
  telemetry: Telemetry;
}

/** One pass over the raw headers: lower-case names, every value of a repeated header kept. */
function headerRecord(req: IncomingMessage): HeaderRecord {
  const headers: HeaderRecord = {};
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const value = raw[index + 1] ?? '';
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else headers[name] = [existing, value];
  }
  return headers;
}

function answer(res: ServerResponse, result: Pick<HandledDelivery, 'status' | 'body' | 'headers'>): void {
  // A relayed answer (listen --forward-to as a proxy) goes out as the app's bytes; the rest is JSON.
  if (!Buffer.isBuffer(result.body)) {
    sendJson(res, result.status, result.body, result.headers);
    return;
  }
  if (res.headersSent || res.destroyed) return;
  res.writeHead(result.status, { 'content-length': result.body.length, ...result.headers }).end(result.body);
}

/** Answers before the body is read: the connection closes and the rest of the upload is discarded. */
function refuseUnread(
  options: NodeAdapterOptions,
  req: IncomingMessage,
  res: ServerResponse,
  refusal: { status: number; error: string; reason: string },
): void {
  const { status, error, reason } = refusal;
  const headers: Record<string, string> = { connection: 'close' };
  if (status === 503) headers['retry-after'] = String(options.retryAfterSeconds);
  answer(res, { status, body: { error, message: reason }, headers });
  options.events.emit({ type: 'refused', method: req.method ?? '?', path: req.url ?? '/', status, reason });
  req.resume();
}

/** Write, then answer: a 2xx goes out only once every recorder holds the delivery. */
async function recordThenAnswer(
  options: NodeAdapterOptions,
  res: ServerResponse,
  result: HandledDelivery,
  delivery: ReceivedDelivery,
  telemetry: Telemetry,
): Promise<void> {
  const { events } = options;
  let recorded = true;
  let kept = true;
  const capturing = telemetry.span('ledgerhook.capture');
  try {
    kept = await events.record(delivery);
    // A refused delivery kept out of the capture by its bound is never answered 2xx (--accept-invalid).
    if (!kept && delivery.status < 300) {
      const refused = refusedAnswer(delivery.verdict);
      delivery.status = refused.status;
      Object.assign(result, refused);
    }
  } catch (error) {
    capturing.fail(error);
    recorded = false;
    events.emit({ type: 'capture-error', message: (error as Error).message });
    if (delivery.status < 300) {
      delivery.status = 503;
      result.status = 503;
      result.body = { error: 'not_recorded', message: 'the delivery could not be recorded; retry later' };
      result.headers = { 'retry-after': String(options.retryAfterSeconds) };
    }
  }
  capturing.end();
  answer(res, result);
  // Nothing refused as forged is passed on, even when answered 200 with acceptInvalid.
  events.emit({
    type: 'delivery',
    delivery,
    accepted: recorded && delivery.verdict.valid !== false,
    recorded: recorded && kept,
  });
}

async function serveOne(options: NodeAdapterOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { events } = options;
  const method = req.method ?? '?';
  const path = req.url ?? '/';
  const early = options.preflight({ method, path });
  if (early) {
    answer(res, early);
    if (early.refused) events.emit({ type: 'refused', ...early.refused });
    return;
  }
  if (!events.hasRoom())
    return refuseUnread(options, req, res, {
      status: 503,
      error: 'busy',
      reason: 'no room for another delivery (the capture queue, or forwards waiting for a retry); retry later',
    });
  // The delivery's trace starts at receipt, before its body is read, and ends once it is answered.
  const span = options.telemetry.span('ledgerhook.delivery', undefined, undefined, 'server');
  const telemetry = options.telemetry.under(span);
  // Attribute objects only when traced: untraced, a delivery allocates nothing for telemetry.
  if (telemetry.enabled) span.setAttributes({ 'http.request.method': method });
  const read = await readRequestBody(req, options.maxBodyBytes, options.budget, options.bodyWaitMs);
  try {
    if (read.ok) {
      const result = await options.handle({ method, path, headers: headerRecord(req), body: read.body }, telemetry);
      if (result.delivery) {
        if (telemetry.enabled) attachTrace(result.delivery, span);
        await recordThenAnswer(options, res, result, result.delivery, telemetry);
      } else answer(res, result);
      if (telemetry.enabled) span.setAttributes({ 'http.response.status_code': result.status });
    } else if (read.reason === 'too_large')
      refuseUnread(options, req, res, {
        status: 413,
        error: 'too_large',
        reason: `body larger than ${options.maxBodyBytes} bytes`,
      });
    else if (read.reason === 'no_room')
      refuseUnread(options, req, res, {
        status: 503,
        error: 'busy',
        reason: 'too many request bodies in memory; retry later',
      });
    else events.emit({ type: 'refused', method, path, status: 0, reason: 'the sender aborted the upload' });
  } finally {
    options.budget.release(read.reserved);
    span.end();
  }
}

/**
 * The thin node:http side of the listener: reads the body within the limits, hands the request to
 * the pure handler, has the delivery recorded, and only then answers.
 */
export function nodeDeliveryHandler(options: NodeAdapterOptions): {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Resolves when every request in progress has been answered and recorded. */
  drain(): Promise<void>;
} {
  // Counted rather than each request's promise kept in a set: no promise per request beyond its own.
  let inFlight = 0;
  let waiting: Array<() => void> = [];
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    try {
      await serveOne(options, req, res);
    } catch (error) {
      answer(res, { status: 500, body: { error: 'internal', message: (error as Error).message } });
    } finally {
      inFlight -= 1;
      if (inFlight === 0 && waiting.length > 0) {
        for (const resolve of waiting) resolve();
        waiting = [];
      }
    }
  };
  return {
    handler(req, res) {
      void serve(req, res);
    },
    drain: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
  };
}
