import { existsSync } from 'node:fs';
import { isAttemptRecord } from './attempt-record.js';
import { jsonLines, type SkippedLines, skippedLines } from './json-lines.js';
import { captureBody, isCaptureRecord, type CaptureRecord } from './capture-record.js';
import { standingsIn } from './route-standings.js';

/** A forward a stopped listener left due: its delivery's bytes, the route and when it is due. */
export interface CapturedPendingForward {
  deliveryId: string;
  /** The delivery's line, as read (its token is checked again before anything is resumed). */
  record: CaptureRecord;
  body: Buffer;
  headers: CaptureRecord['headers'];
  route: string;
  url: string;
  attempts: number;
  /** When the next attempt is due (ms since the epoch); past for an overdue one. */
  dueAtMs: number;
}

/**
 * The forwards a capture file still owes (listen --retry): each route of a delivery whose last line
 * is `retrying`, or that has no attempt at all (the listener stopped before the first): route-standings'
 * `owed`. Streamed: a delivery is held only while it is still owed. A missing file owes nothing.
 */
export async function readPendingForwards(
  path: string,
  /** Where the lines that are not JSON go, as readCaptures says them; lines of another shape are not this reader's. */
  skipped: SkippedLines = skippedLines('', 'the writer'),
): Promise<CapturedPendingForward[]> {
  if (!existsSync(path)) return [];
  const owed = new Map<string, CaptureRecord>();
  for await (const { value } of jsonLines(path, skipped)) {
    if (isAttemptRecord(value)) {
      const record = owed.get(value.deliveryId);
      if (!record) continue;
      record.attempts = [...(record.attempts ?? []), value];
      if (standingsIn(record, 'owed').length === 0) owed.delete(value.deliveryId);
      // A delivery refused as forged (kept under --accept-invalid) is never retried or resumed.
    } else if (
      isCaptureRecord(value) &&
      Array.isArray(value.forwarding) &&
      !value.bodyTruncated &&
      value.verdict.valid !== false
    ) {
      delete value.attempts;
      owed.set(value.id, value);
    }
  }
  return [...owed.values()].flatMap((record) =>
    standingsIn(record, 'owed').map(({ route, url, attempts, nextAt }) => ({
      deliveryId: record.id,
      record,
      body: captureBody(record),
      headers: record.headers,
      route,
      url,
      attempts,
      dueAtMs: Date.parse(nextAt ?? '') || 0,
    })),
  );
}
