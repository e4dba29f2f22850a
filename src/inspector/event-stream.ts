import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS, sendJson } from './http-guard.js';
import { toSummary } from './inspector-delivery.js';
import type { InspectorSource } from './inspector-source.js';

/** A page or two is normal; hundreds of streams would be abuse. */
const MAX_STREAMS = 32;
/** A stream that stops reading is cut off instead of buffering without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events: first a `snapshot` of every delivery so far, then one `delivery` event per
 * new one. Subscribing before the snapshot is written means none can fall between the two.
 */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  source: InspectorSource,
  streams: Set<() => void>,
): void {
  if (streams.size >= MAX_STREAMS) {
    sendJson(res, 503, { error: 'too many open inspector pages' });
    return;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  const write = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  // The snapshot may be large and is written once; after it, a page that stops reading is cut off.
  const unsubscribe = source.subscribe((delivery) => {
    if (res.writableLength > MAX_BUFFERED_BYTES) end();
    else write('delivery', toSummary(delivery));
  });
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    unsubscribe();
    clearInterval(heartbeat);
    streams.delete(end);
    res.end();
  };
  streams.add(end);
  req.on('close', end);
  write('snapshot', source.snapshot().map(toSummary));
}
