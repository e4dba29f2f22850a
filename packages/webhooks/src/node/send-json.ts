import type { ServerResponse } from 'node:http';

/**
 * The one JSON answer of every node:http edge (listener, receiver middleware, mock, inspector):
 * content type and length set, nothing written twice, nothing to a socket already gone. The body
 * goes out as a string: Node then sends the head and the body as one string in one write, where a
 * Buffer body costs a Buffer and a writev of two chunks.
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
