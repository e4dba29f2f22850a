import type { ServerResponse } from 'node:http';

/**
 * The one JSON answer of every node:http edge (listener, receiver middleware, mock, inspector):
 * content type and length set, nothing written twice, nothing to a socket already gone.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | number> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(status, { 'content-type': 'application/json', ...headers, 'content-length': bytes.length }).end(bytes);
}
