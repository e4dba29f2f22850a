import type { ParsedWebhookBody } from '@ledgerhook/webhooks';
import { LedgerhookError } from '../errors.js';
import { isHeaderName, isHeaderValue } from '../util/header-name.js';
import { isObject } from '../util/is-object.js';
import type { AttemptRecord } from './attempt-record.js';

/** One captured delivery: one line of a JSON Lines capture file. */
export interface CaptureRecord {
  id: string;
  /** ISO 8601 UTC, when the last byte of the body arrived. */
  receivedAt: string;
  method: string;
  path: string;
  /** Header names in lower case; a repeated header keeps every value. */
  headers: Record<string, string | string[]>;
  /** Which header carried the verification token (the configured name, lower case). */
  headerName: string;
  /** The raw body, byte-exact, in standard Base64 (only its head when bodyTruncated). */
  body: string;
  /** Length of the whole body as received. */
  bodyBytes: number;
  /** True when only the head of the body was kept (refused deliveries): never replay or verify it. */
  bodyTruncated?: boolean;
  /** Standard Base64 of the SHA-256 of the full body, when the body was truncated. */
  bodySha256?: string;
  verdict: CaptureVerdict;
  /** From the body, when it parses as a webhook (for filtering and display). */
  type?: string;
  event?: string;
  userId?: string;
  entities?: string[];
  forward?: CapturedForward;
  /**
   * Set on a delivery ledgerhook sent after a person edited it (inspector, `replay --edit`): the id of
   * the delivery it was edited from. Such a record was re-signed here; `forward` holds the answer.
   */
  editedFrom?: string;
  /** Every route's answer, when routes were forwarded before the answer (listen with routes). */
  forwards?: CapturedForward[];
  /** With retries: the routes the delivery was due at; its attempts are the lines linked to it. */
  forwarding?: Array<{ route: string; url: string }>;
  /** Not in the delivery's line: the attempt lines linked to it, attached by `readCaptures`. */
  attempts?: AttemptRecord[];
}

export interface CapturedForward {
  route?: string;
  url: string;
  status?: number;
  latencyMs?: number;
  error?: string;
}

export interface CaptureVerdict {
  /** null when no secret was configured and nothing was verified. */
  valid: boolean | null;
  code?: string;
  message?: string;
  /** Accepted, but worth a look (an iat in the future, say). */
  warnings?: string[];
  /** What the listener answered. */
  status: number;
}

/** What a body that parsed names, kept on its record: the type and user, then the event or the entities. */
export function noteBodyNames(record: CaptureRecord, parsed: ParsedWebhookBody): void {
  if (!parsed.ok) return;
  record.type = parsed.body.type;
  record.userId = parsed.body.userId;
  if (parsed.body.type === 'LIFECYCLE_EVENT') record.event = parsed.body.event;
  else record.entities = parsed.body.entities;
}

export function captureBody(record: CaptureRecord): Buffer {
  return Buffer.from(record.body, 'base64');
}

/** Enough structure to replay and verify; anything else in a line is kept but not required. */
export function isCaptureRecord(value: unknown): value is CaptureRecord {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.receivedAt === 'string' &&
    typeof value.body === 'string' &&
    isObject(value.headers) &&
    typeof value.headerName === 'string' &&
    isObject(value.verdict) &&
    (value.bodyTruncated === undefined || typeof value.bodyTruncated === 'boolean') &&
    (value.bodySha256 === undefined || typeof value.bodySha256 === 'string')
  );
}

/**
 * The body of a captured delivery, refusing a record whose body was not kept in full: its head
 * alone would never verify, and sending it on would forward a different delivery than was received.
 */
export function fullCapturedBody(record: CaptureRecord): Buffer {
  if (record.bodyTruncated === true) {
    throw new LedgerhookError(
      'ERR_USAGE',
      `delivery ${record.id}: the body was not captured in full (only its first bytes of ${record.bodyBytes} were kept), so it can be neither verified nor replayed`,
      { details: { reason: 'capture_body_truncated', id: record.id, bodyBytes: record.bodyBytes } },
    );
  }
  return captureBody(record);
}

/**
 * The captured headers, keeping only what the client would send (names and values as isHeaderName
 * and isHeaderValue allow; a string, or strings for a repeated one): a capture file is plain JSON
 * that anyone can edit, and its values came off the network.
 */
export function capturedHeaderValues(record: CaptureRecord): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (!isHeaderName(name)) continue;
    if (typeof value === 'string') {
      if (isHeaderValue(value)) headers[name.toLowerCase()] = value;
    } else if (Array.isArray(value))
      headers[name.toLowerCase()] = value.filter((v): v is string => typeof v === 'string' && isHeaderValue(v));
  }
  return headers;
}
