import type { ServerResponse } from 'node:http';

/**
 * Answers a node:http request with a status, headers and a JSON body, setting its type and length;
 * does nothing once an answer started or the socket is gone, so no answer is ever written twice.
 * ledgerhook's own servers answer through it too. The body goes out as a string: Node then sends
 * the head and the body as one string in one write, where a Buffer body costs a Buffer and a writev
 * of two chunks.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | number> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(value);
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers, 'content-length': Buffer.byteLength(text) })
    .end(text);
}
