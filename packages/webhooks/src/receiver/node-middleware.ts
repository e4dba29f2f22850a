import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES } from '../defaults.js';
import type { WebhookBody } from '../webhook/body-hash.js';
import { bodyTooLarge, methodNotAllowed, refused, type ReceiverAnswer } from './answer.js';
import { readRequestBody } from '../node/read-body.js';
import { sendJson } from '../node/send-json.js';
import { verificationHeaders } from './read-node-body.js';
import type { Webhooks } from './webhooks.js';

/** Options of `createNodeMiddleware`: the one path to serve (others get 404 or go to `next`) and the largest body read (default 1 MiB). */
export interface NodeMiddlewareOptions {
  /** Serve only this path (for a bare node:http server); other paths go to `next` or get 404. */
  path?: string | undefined;
  /** Larger bodies are answered 413; default 1 MiB, like `ledgerhook listen`. */
  maxBodyBytes?: number | undefined;
}

/** Express/Connect middleware, or a node:http request listener when called without `next`. */
export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

export const BODY_PARSED_FIX =
  'ledgerhook: a body parser (express.json() or similar) consumed the webhook body before ledgerhook could verify it, so every delivery is answered 500. Mount the webhook route before express.json(), or use express.raw({ type: "*/*" }) for it (Next.js pages/api: export const config = { api: { bodyParser: false } }).';

function send(res: ServerResponse, answer: ReceiverAnswer): void {
  sendJson(res, answer.status, answer.body, answer.headers);
}

type BodySource = { kind: 'bytes'; body: WebhookBody } | { kind: 'stream' } | { kind: 'parsed' };

/**
 * What a framework left of the body: bytes from express.raw/express.text are used as they are;
 * an object means a JSON parser consumed the stream and the raw bytes are gone, and a
 * re-serialised object is never verified. Express 4's json() leaves `{}` on requests it skipped
 * without reading them: the stream is still there, so it is read. A stream already read to its
 * end with nothing left in req.body is gone too (waiting for it would hold the request forever).
 */
function bodySource(req: IncomingMessage): BodySource {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return { kind: 'bytes', body: parsed };
  const parsedByExpress4 = parsed !== undefined && (req as IncomingMessage & { _body?: unknown })._body === true;
  return parsedByExpress4 || req.readableEnded ? { kind: 'parsed' } : { kind: 'stream' };
}

/**
 * Receives deliveries in Express 4/5, Connect or a bare node:http server: reads the raw bytes
 * itself, verifies them with `webhooks`, runs the handlers and answers (200, 400 `{error}`,
 * 405, 413, 500). If a JSON body parser ran first it answers 500 and logs the fix once.
 *
 * @example
 * app.post('/webhooks', createNodeMiddleware(webhooks));                     // Express, before express.json()
 * http.createServer(createNodeMiddleware(webhooks, { path: '/webhooks' })).listen(3000);
 */
export function createNodeMiddleware(webhooks: Webhooks, options: NodeMiddlewareOptions = {}): NodeMiddleware {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let warned = false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return send(res, methodNotAllowed());
    const source = bodySource(req);
    if (source.kind === 'parsed') {
      if (!warned) webhooks.log.error(BODY_PARSED_FIX);
      warned = true;
      return send(res, refused(500, 'body_already_parsed'));
    }
    let body: WebhookBody;
    if (source.kind === 'bytes') body = source.body;
    else {
      // The listener's reader, without a shared budget: the app's server bounds its own connections.
      const read = await readRequestBody(req, maxBodyBytes);
      if (!read.ok) {
        // An aborted upload has nobody left to answer.
        if (read.reason === 'too_large' || read.reason === 'no_room') {
          send(res, bodyTooLarge());
          req.resume();
        }
        return;
      }
      body = read.body;
    }
    const headers = req.rawHeaders ? verificationHeaders(req, webhooks.headerName) : req.headers;
    send(res, await webhooks.verifyAndReceive({ headers, body }));
  };

  return (req, res, next) => {
    if (options.path !== undefined && (req.url ?? '/').split('?')[0] !== options.path) {
      if (next) return next();
      return send(res, refused(404, 'not_found'));
    }
    handle(req, res).catch((error: unknown) => {
      webhooks.log.error(`ledgerhook: the webhook receiver failed: ${error instanceof Error ? error.message : error}`);
      send(res, refused(500, 'internal_error'));
    });
  };
}
