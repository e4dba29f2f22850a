import { existsSync } from 'node:fs';
import { isAttemptRecord } from './attempt-record.js';
import { captureLines } from './capture-lines.js';
import { captureBody, isCaptureRecord, type CaptureRecord } from './capture-record.js';

/** A forward a stopped listener left due: its delivery's bytes, the route and when it is due. */
export interface CapturedPendingForward {
  deliveryId: string;
  body: Buffer;
  headers: CaptureRecord['headers'];
  route: string;
  url: string;
  attempts: number;
  /** When the next attempt is due (ms since the epoch); past for an overdue one. */
  dueAtMs: number;
}

interface Entry {
  record: CaptureRecord;
  routes: Map<string, { url: string; attempts: number; dueAtMs: number }>;
}

/**
 * The forwards a capture file still owes (listen --retry): each route of a delivery whose last line
 * is `retrying`, or that has no attempt at all (the listener stopped before the first). Streamed:
 * only deliveries still owed are held. A missing file owes nothing.
 */
export async function readPendingForwards(path: string): Promise<CapturedPendingForward[]> {
  if (!existsSync(path)) return [];
  const owed = new Map<string, Entry>();
  for await (const line of captureLines(path)) {
    if (line.kind !== 'line' || line.text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    if (isAttemptRecord(value)) {
      const entry = owed.get(value.deliveryId);
      const route = entry?.routes.get(value.route);
      if (!entry || !route) continue;
      if (value.outcome === 'retrying') {
        route.attempts = value.attempt;
        route.dueAtMs = Date.parse(value.nextAt ?? '') || 0;
      } else entry.routes.delete(value.route);
      if (entry.routes.size === 0) owed.delete(value.deliveryId);
      // A delivery refused as forged (kept under --accept-invalid) is never retried or resumed.
    } else if (
      isCaptureRecord(value) &&
      Array.isArray(value.forwarding) &&
      !value.bodyTruncated &&
      value.verdict.valid !== false
    ) {
      const routes = new Map(value.forwarding.map(({ route, url }) => [route, { url, attempts: 0, dueAtMs: 0 }]));
      owed.set(value.id, { record: value, routes });
    }
  }
  return [...owed.values()].flatMap(({ record, routes }) =>
    [...routes].map(([route, { url, attempts, dueAtMs }]) => ({
      deliveryId: record.id,
      body: captureBody(record),
      headers: record.headers,
      route,
      url,
      attempts,
      dueAtMs,
    })),
  );
}
