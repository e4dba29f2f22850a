/**
 * The listener's connection policy, apart from what it does with a delivery: how long a connection
 * may take or idle, and what a request it cannot take is answered with.
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { DEFAULT_IDLE_TIMEOUT_SECONDS } from '../defaults.js';

/** Idle connections (no byte sent, or nothing more after an answer) are closed after this. */
export const DEFAULT_IDLE_TIMEOUT_MS = DEFAULT_IDLE_TIMEOUT_SECONDS * 1000;

/** The server's timeouts from the listener's resolved limits (`requestTimeoutMs`, `idleTimeoutMs`). */
export function timeouts(limits: { requestTimeoutMs: number; idleTimeoutMs: number }) {
  const requestTimeout = limits.requestTimeoutMs;
  const idle = limits.idleTimeoutMs;
  // Node checks headersTimeout and requestTimeout on this interval (30 s by default): too coarse.
  const interval = Math.min(1000, Math.max(50, Math.floor(Math.min(idle, requestTimeout) / 4)));
  return {
    requestTimeout,
    // Also covers a connection that never sends a byte (Node starts this clock when it connects);
    // one interval less, so that the connection is closed within `idle`, not up to a check later.
    headersTimeout: Math.min(Math.max(idle - interval, interval), requestTimeout),
    keepAliveTimeout: Math.min(5000, idle),
    connectionsCheckingInterval: interval,
  };
}

/** A bad request (garbage bytes, too many headers, too slow) gets Node's 400/408/431 and a closed socket. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || socket.destroyed) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

/** The answer while the listener is still starting: nothing is read, nothing recorded; try again. */
export function starting(response: ServerResponse): void {
  response.shouldKeepAlive = false;
  response
    .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
    .end('{"error":"starting","message":"the listener is starting; retry in a second"}');
}
