import { DEFAULT_MAX_BODY_BYTES } from '../defaults.js';
import { bodyTooLarge, methodNotAllowed, refused, type ReceiverAnswer } from './answer.js';
import type { Webhooks } from './webhooks.js';

/** Options of `createWebMiddleware`: the largest body read (default 1 MiB; larger ones are answered 413). */
export interface WebHandlerOptions {
  /** Larger bodies are answered 413; default 1 MiB, like `ledgerhook listen`. */
  maxBodyBytes?: number | undefined;
}

/** A fetch Request, or a Hono context (`c.req.raw`), so the handler can be mounted directly in Hono. */
export type WebHandlerInput = Request | { req: { raw: Request } };

export const BODY_USED_FIX =
  'ledgerhook: the request body was read (c.req.json(), request.json() or similar in a middleware) before ledgerhook could verify it, so every delivery is answered 500. Let the webhook handler be the first to read the body of its route.';

/**
 * Duck-typed rather than `instanceof Request`: a Request built by another copy of undici (or
 * another realm) is a fetch Request all the same; a Hono context is what carries `req.raw`.
 */
function requestOf(input: WebHandlerInput): Request {
  return 'req' in input && input.req?.raw ? input.req.raw : (input as Request);
}

function toResponse(answer: ReceiverAnswer): Response {
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
}

/** The raw bytes of a fetch Request, counted as they arrive; undefined past the limit. */
async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const [first] = chunks;
  if (chunks.length === 1 && first) return first;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * A `Request -> Response` handler for runtimes built on the fetch API: Next.js route handlers,
 * Hono, Bun, Deno, Cloudflare Workers. Reads the raw bytes itself, verifies them, runs the
 * handlers and answers (200, 400 `{error}`, 405, 413, 500). If a middleware read the body first,
 * it answers 500 and logs the fix once.
 *
 * @example
 * // app/webhooks/route.ts (Next.js)
 * export const POST = createWebMiddleware(webhooks);
 * // Hono: the raw Request, or the handler itself (it takes the context too)
 * app.post('/webhooks', (c) => handler(c.req.raw));
 * app.post('/webhooks', handler);
 */
export function createWebMiddleware(
  webhooks: Webhooks,
  options: WebHandlerOptions = {},
): (input: WebHandlerInput) => Promise<Response> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let warned = false;
  return async (input) => {
    const request = requestOf(input);
    if (request.method !== 'POST') return toResponse(methodNotAllowed());
    // The bytes are gone; a framework's cached copy may be re-serialised JSON, which is never verified.
    if (request.bodyUsed) {
      if (!warned) webhooks.log.error(BODY_USED_FIX);
      warned = true;
      return toResponse(refused(500, 'body_already_parsed'));
    }
    try {
      const body = await readLimited(request, maxBodyBytes);
      if (body === undefined) return toResponse(bodyTooLarge());
      return toResponse(await webhooks.verifyAndReceive({ headers: request.headers, body }));
    } catch (error) {
      webhooks.log.error(`ledgerhook: the webhook receiver failed: ${error instanceof Error ? error.message : error}`);
      return toResponse(refused(500, 'internal_error'));
    }
  };
}
