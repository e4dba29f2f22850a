/**
 * inspector/: the local inspector page. This file is its loopback server (a per-run token,
 * http-guard.ts's headers); inspector-source.ts the deliveries shown, event-stream.ts the live SSE
 * list, delivery-detail.ts what the detail view shows. Replay, copy as curl (curl-command.ts) and
 * edit and resend (edit-action.ts) are server-side actions (inspector-actions.ts) that hold the
 * secret; page/ is the page itself, bundled by esbuild.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_INSPECTOR_PORT } from '../defaults.js';
import { isLedgerhookError, LedgerhookError } from '../errors.js';
import { deliveryDetail, type DetailOptions } from './delivery-detail.js';
import { constantTimeEqual } from '@ledgerhook/webhooks/advanced';
import { hostAllowed, sameOrigin, send, sendJson } from './http-guard.js';
import type { InspectorActions, ReplayMode } from './inspector-actions.js';
import { toSummary, type InspectorDelivery } from './inspector-delivery.js';
import type { InspectorSource } from './inspector-source.js';
import { FAVICON_SVG, loadPageAssets, pageHtml, type PageAssets } from './page-assets.js';
import { openEventStream } from './event-stream.js';

export interface InspectorOptions {
  source: InspectorSource;
  actions: InspectorActions;
  /** Where this inspector looks: "listen on http://..." or the capture file name. */
  title: string;
  port?: number | undefined;
  /** Loopback unless the caller passes a host explicitly (the CLI's --ui-host). */
  host?: string | undefined;
  /** The default replay target (listen --forward-to). */
  forwardTo?: string | undefined;
  detail?: Omit<DetailOptions, 'syncs'> | undefined;
  /** For tests; default: 24 random bytes, Base64Url. */
  token?: string | undefined;
  assets?: PageAssets | undefined;
}

export interface RunningInspector {
  /** The page's URL, token included: the only way in. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);
const MAX_POST_BYTES = 8 * 1024;

async function readSmallJson(req: IncomingMessage, limit = MAX_POST_BYTES): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new LedgerhookError('ERR_USAGE', 'request body too large');
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new LedgerhookError('ERR_USAGE', 'the request body must be a JSON object');
}

function bind(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LedgerhookError('ERR_USAGE', `the inspector port ${port} is in use`, {
              cause: error,
              details: { reason: 'inspector_port_in_use', port },
            })
          : new LedgerhookError('ERR_USAGE', `cannot serve the inspector on ${host}: ${error.code ?? error.message}`, {
              cause: error,
              details: { reason: 'inspector_bind_failed', host },
            }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The page's API: the list, the live stream, one delivery's detail, and the two actions. */
function apiHandler(options: InspectorOptions, streams: Set<() => void>) {
  const { source, actions } = options;
  const detailOf = async (delivery: InspectorDelivery) => ({
    ...(await deliveryDetail(delivery, { ...options.detail, syncs: source.syncsOf(delivery.id) })),
    replayModes: await actions.modesFor(delivery),
    edit: await actions.editOffer(delivery),
  });

  // One edit at a time, refused before its body is read when not allowed: an edited body arrives as a
  // JSON string (up to 6 characters per character of the body), so memory stays one such request.
  let editing = false;
  const edit = async (req: IncomingMessage, res: ServerResponse, delivery: InspectorDelivery) => {
    const offer = await actions.editOffer(delivery);
    // Answered unread: the connection ends with the answer, so that the body is not taken for a request.
    const refuse = (status: number, error: string) => {
      res.setHeader('connection', 'close');
      sendJson(res, status, { error });
    };
    if (!offer.allowed) return refuse(400, offer.why ?? 'this delivery cannot be edited');
    if (editing) return refuse(409, 'another edited delivery is being sent; try again');
    editing = true;
    try {
      const request = await readSmallJson(req, offer.maxBodyBytes * 6 + 128 * 1024);
      const target = typeof request.to === 'string' && request.to !== '' ? request.to : options.forwardTo;
      if (target === undefined) return sendJson(res, 400, { error: 'give a URL to send the edited delivery to' });
      if (typeof request.body !== 'string') return sendJson(res, 400, { error: 'the edited body must be text' });
      const answer = await actions.edit(delivery, { to: target, body: request.body, headers: request.headers });
      return sendJson(res, 200, answer);
    } finally {
      editing = false;
    }
  };

  return async (req: IncomingMessage, res: ServerResponse, route: string, query: URLSearchParams) => {
    if (route === 'api/meta') return sendJson(res, 200, { title: options.title, forwardTo: options.forwardTo ?? null });
    if (route === 'api/events') return openEventStream(req, res, source, streams);
    if (route === 'api/deliveries') return sendJson(res, 200, source.snapshot().map(toSummary));
    const match = /^api\/deliveries\/([^/]+)(?:\/(curl|replay|edit))?$/.exec(route);
    const delivery = match?.[1] === undefined ? undefined : source.find(safeDecode(match[1]));
    if (!match || !delivery) return sendJson(res, 404, { error: 'no such delivery' });
    const action = match[2];
    if (action === undefined) return sendJson(res, 200, await detailOf(delivery));
    if (action === 'curl') {
      const target = query.get('to') ?? options.forwardTo ?? 'http://localhost:3000/webhooks';
      return sendJson(res, 200, { command: await actions.curl(delivery, target) });
    }
    if (req.method !== 'POST' || !sameOrigin(req))
      return sendJson(res, 405, { error: `${action} is a POST from the page` });
    if (action === 'edit') return edit(req, res, delivery);
    const body = await readSmallJson(req);
    const target = typeof body.to === 'string' && body.to !== '' ? body.to : options.forwardTo;
    if (target === undefined) return sendJson(res, 400, { error: 'give a URL to replay to' });
    const mode: ReplayMode = body.mode === 'resigned' ? 'resigned' : 'as-captured';
    return sendJson(res, 200, await actions.replay(delivery, target, mode, body.confirmRefused === true));
  };
}

/**
 * Serves the inspector page and its API on loopback. Every path starts with the per-run token
 * (/TOKEN/...): without it, 403. The page receives results only; secrets stay in this process.
 */
export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const assets = options.assets ?? (await loadPageAssets());
  const host = options.host ?? '127.0.0.1';
  const loopbackOnly = LOOPBACK_HOSTS.has(host);
  const token = options.token ?? randomBytes(24).toString('base64url');
  const streams = new Set<() => void>();

  const api = apiHandler(options, streams);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!hostAllowed(req, host, loopbackOnly)) return send(res, 403, 'text/plain', 'forbidden: unexpected Host\n');
    const url = new URL(req.url ?? '/', 'http://inspector.invalid');
    const [, given = '', ...rest] = url.pathname.split('/');
    // Constant time: the per-run token is the only way in (its length is public, it is fixed).
    if (!constantTimeEqual(given, token))
      return send(res, 403, 'text/plain', 'forbidden: open the URL ledgerhook printed\n');
    const route = rest.join('/');
    if (route === '' && rest.length === 0) return send(res, 308, 'text/plain', '', { location: `/${token}/` });
    if (route === '') return send(res, 200, 'text/html; charset=utf-8', pageHtml());
    if (route === 'app.js') return send(res, 200, 'text/javascript; charset=utf-8', assets.script);
    if (route === 'app.css') return send(res, 200, 'text/css; charset=utf-8', assets.style);
    if (route === 'favicon.svg') return send(res, 200, 'image/svg+xml', FAVICON_SVG);
    if (route.startsWith('api/')) return api(req, res, route, url.searchParams);
    return send(res, 404, 'text/plain', 'not found\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const known = isLedgerhookError(error);
      // A request refused before its body was read (too large): the rest of it must not be taken for
      // the next request on this connection, so the connection ends with the answer.
      if (!req.complete) res.setHeader('connection', 'close');
      sendJson(res, known ? 400 : 500, { error: known ? error.message : 'internal error' });
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await bind(server, options.port ?? DEFAULT_INSPECTOR_PORT, host);
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}/${token}/`,
    port,
    async close() {
      for (const end of streams) end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
