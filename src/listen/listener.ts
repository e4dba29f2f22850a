import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import type { CaptureRecord } from '../capture/capture-record.js';
import type { CaptureWriter } from '../capture/capture-writer.js';
import { postWebhook } from '../delivery/post-webhook.js';
import { parseWebhookBody } from '../webhook/bodies.js';
import { DEFAULT_HEADER_NAME } from '../webhook/request.js';
import type { SecretInput } from '../webhook/secrets.js';
import { verifyWebhook } from '../webhook/verify.js';
import { readRequestBody } from './read-body.js';

export const DEFAULT_LISTEN_PORT = 4000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface ListenerOptions {
  port?: number;
  host?: string;
  /** Only this path is served (404 elsewhere); default: any path. */
  path?: string;
  /** Empty: verify nothing (each delivery is recorded with valid: null). */
  secrets?: readonly SecretInput[];
  headerName?: string;
  toleranceSeconds?: number;
  /** Answer 200 to invalid deliveries too (they are still recorded as invalid). */
  acceptInvalid?: boolean;
  capture?: CaptureWriter;
  /** Forward each accepted delivery byte-exact and answer with the app's status. */
  forwardTo?: URL;
  forwardTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Whole-request time limit in ms (slow senders are cut off); headers must arrive within min(10 s, this). */
  requestTimeoutMs?: number;
  now?: () => number;
  dispatcher?: Dispatcher;
  onEvent?: (event: ListenerEvent) => void;
  /** Called for every delivery that was accepted (valid, or any when nothing is verified), after the answer. */
  onAccepted?: (record: CaptureRecord) => void;
}

export type ListenerEvent =
  | { type: 'delivery'; record: CaptureRecord }
  | { type: 'refused'; method: string; path: string; status: number; reason: string }
  | { type: 'capture-error'; message: string };

export interface ListenerStats {
  deliveries: number;
  valid: number;
  invalid: number;
  unverified: number;
  refused: number;
  forwardFailures: number;
}

export interface RunningListener {
  url: string;
  port: number;
  stats: ListenerStats;
  /** Stops accepting, lets in-flight deliveries finish, flushes the capture file. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'proxy-connection', 'te', 'trailer', 'expect']);

/** One pass over the raw headers: lower-case names, every value of a repeated header kept. */
function headerRecord(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  const raw = req.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    const value = raw[index + 1]!;
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else headers[name] = [existing, value];
  }
  return headers;
}

function forwardHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function answer(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra }).end(text);
}

/** Unique ids without a random draw per delivery: a random prefix per listener, then a counter. */
function idGenerator(): (now: number) => string {
  const prefix = randomBytes(3).toString('hex');
  let counter = 0;
  return (now) => `dlv_${now.toString(36)}${prefix}${(counter++).toString(36).padStart(3, '0')}`;
}

/**
 * A local webhook receiver: verifies every delivery like the spec's sample receiver (400 with the
 * reason when invalid), records it, optionally forwards it to the developer's app, and never
 * crashes on a bad request.
 */
export async function startListener(options: ListenerOptions = {}): Promise<RunningListener> {
  const headerName = options.headerName ?? DEFAULT_HEADER_NAME;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const now = options.now ?? Date.now;
  const secrets = options.secrets ?? [];
  const stats: ListenerStats = { deliveries: 0, valid: 0, invalid: 0, unverified: 0, refused: 0, forwardFailures: 0 };
  const inFlight = new Set<Promise<void>>();
  const emit = (event: ListenerEvent) => options.onEvent?.(event);
  const newId = idGenerator();

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, reason: string, extra: Record<string, string> = {}) => {
    stats.refused += 1;
    answer(res, status, { error: reason }, extra);
    emit({ type: 'refused', method: req.method ?? '?', path: req.url ?? '?', status, reason });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = req.url ?? '/';
    if (options.path && path.split('?')[0] !== options.path) return refuse(req, res, 404, `nothing here; deliveries go to ${options.path}`);
    if (req.method !== 'POST') return refuse(req, res, 405, 'webhook deliveries are POST requests', { allow: 'POST' });
    const read = await readRequestBody(req, maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too_large') {
        refuse(req, res, 413, `body larger than ${maxBodyBytes} bytes`, { connection: 'close' });
        req.resume();
      } else {
        stats.refused += 1;
        emit({ type: 'refused', method: req.method, path, status: 0, reason: 'the sender aborted the upload' });
      }
      return;
    }
    const receivedAtMs = now();
    const body = read.body;
    const headers = headerRecord(req);
    const tokenValue = headers[headerName.toLowerCase()];
    const token = { value: Array.isArray(tokenValue) ? tokenValue[0] : tokenValue, count: tokenValue === undefined ? 0 : Array.isArray(tokenValue) ? tokenValue.length : 1 };
    let valid: boolean | null = null;
    let code: string | undefined;
    let message: string | undefined;
    if (secrets.length > 0) {
      const result = token.count > 1
        ? { ok: false as const, code: 'malformed_token', message: `the ${headerName} header appears ${token.count} times` }
        : await verifyWebhook({ body, token: token.value, secrets, ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}), now: () => receivedAtMs });
      valid = result.ok;
      if (!result.ok) ({ code, message } = result);
    }
    const parsed = parseWebhookBody(body);
    const accepted = valid !== false || Boolean(options.acceptInvalid);
    let status = accepted ? 200 : 400;
    let forward: CaptureRecord['forward'];
    if (accepted && options.forwardTo) {
      try {
        const response = await postWebhook({
          url: options.forwardTo, body, headers: forwardHeaders(headers),
          ...(options.forwardTimeoutMs !== undefined ? { timeoutMs: options.forwardTimeoutMs } : {}),
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        });
        status = response.status;
        forward = { url: options.forwardTo.href, status: response.status, latencyMs: Number(response.latencyMs.toFixed(2)) };
      } catch (error) {
        stats.forwardFailures += 1;
        status = 502;
        forward = { url: options.forwardTo.href, error: error instanceof LedgerhookError ? error.message : String(error) };
      }
    }
    if (valid === false && !options.acceptInvalid) answer(res, 400, { error: code, message });
    else if (status === 502) answer(res, 502, { error: 'forward_failed', message: forward?.error });
    else answer(res, status, { received: true });

    const record: CaptureRecord = {
      id: newId(receivedAtMs),
      receivedAt: new Date(receivedAtMs).toISOString(),
      method: req.method,
      path,
      headers,
      headerName: headerName.toLowerCase(),
      body: body.toString('base64'),
      bodyBytes: body.length,
      verdict: { valid, status, ...(code ? { code } : {}), ...(message ? { message } : {}) },
      ...(parsed.ok ? {
        type: parsed.body.type,
        userId: parsed.body.userId,
        ...(parsed.body.type === 'LIFECYCLE_EVENT' ? { event: parsed.body.event } : { entities: parsed.body.entities }),
      } : {}),
      ...(forward ? { forward } : {}),
    };
    stats.deliveries += 1;
    if (valid === true) stats.valid += 1;
    else if (valid === false) stats.invalid += 1;
    else stats.unverified += 1;
    if (options.capture) {
      await options.capture.append(record).catch((error: Error) => emit({ type: 'capture-error', message: error.message }));
    }
    emit({ type: 'delivery', record });
    if (valid !== false) options.onAccepted?.(record);
  };

  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const server: Server = createServer({
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(10_000, requestTimeoutMs),
    // Node checks the two timeouts above on this interval (30 s by default): too coarse for slow senders.
    connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    keepAliveTimeout: 5000,
  }, (req, res) => {
    const task = handle(req, res).catch((error: unknown) => {
      answer(res, 500, { error: 'internal', message: (error as Error).message });
    });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  });
  // A bad request (garbage bytes, too many headers) gets Node's 400/431 and a closed socket, never a crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (socket.writable && !socket.destroyed) {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
    stats.refused += 1;
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${options.host ?? '127.0.0.1'}:${options.port ?? DEFAULT_LISTEN_PORT}`;
      reject(new LedgerhookError('ERR_USAGE', error.code === 'EADDRINUSE' ? `port ${options.port ?? DEFAULT_LISTEN_PORT} is already in use on ${where}; choose another with --port` : `cannot listen on ${where}: ${error.message}`, { cause: error }));
    });
    server.listen(options.port ?? DEFAULT_LISTEN_PORT, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}${options.path ?? '/'}`,
    port: address.port,
    stats,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.allSettled([...inFlight]);
        // Keep-alive connections that went idle after their last answer; a stuck one is cut after 2 s.
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 2000);
        await closed;
        clearTimeout(force);
        await options.capture?.close();
      })();
      return closing;
    },
  };
}
