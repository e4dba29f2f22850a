import { createHash } from 'node:crypto';
import { isReplayMarker, REPLAY_OF_HEADER } from '../replay/replay.js';
import { shortMismatchCause } from '@ledgerhook/webhooks/advanced';
import { parseToken } from '@ledgerhook/webhooks/advanced';
import type { CaptureRecord } from '../capture/capture-record.js';
import { DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';

/**
 * What the inspector (and `captures show`) knows of one delivery. Built from a CaptureRecord by
 * `fromCaptureRecord`, so that a capture file and a running listener feed the same views.
 */
export type InspectorVerdict = 'valid' | 'refused' | 'unverified';

/** One row of the list: small, so that thousands of them travel and render cheaply. */
export interface InspectorSummary {
  /** Position in the source, 0-based (the `:index` selector of the CLI). */
  index: number;
  id: string;
  receivedAt: string;
  type?: string | undefined;
  event?: string | undefined;
  entities?: string[] | undefined;
  userId?: string | undefined;
  verdict: InspectorVerdict;
  /** The verify failure code of a refused delivery (bad_signature, expired...). */
  code?: string | undefined;
  message?: string | undefined;
  /** What the listener answered. */
  status: number;
  method: string;
  path: string;
  /** For a body_mismatch: its cause in a word or two (hex digest, re-serialised, changed). */
  cause?: string | undefined;
  /** The id of the delivery this one replays (its ledgerhook-replay-of header), when it is a replay. */
  replayOf?: string | undefined;
  /** The id of the delivery this one was edited from (a capture's editedFrom), when it is an edit. */
  editedFrom?: string | undefined;
  bodyBytes: number;
  /** The stored body is only the head of a larger one (refused deliveries may be cut). */
  bodyTruncated: boolean;
  /**
   * What a refused delivery's body claims to be, when it reads as a webhook body: nothing in it is
   * trusted (the page marks it "unverified"). A forgery's body is read here, where the inspector builds
   * its view after the answer: the listener never parses a body whose signature failed.
   */
  claimed?: ClaimedBody | undefined;
}

export interface ClaimedBody {
  type: string;
  event?: string | undefined;
  entities?: string[] | undefined;
  userId: string;
}

export interface InspectorDelivery extends InspectorSummary {
  record: CaptureRecord;
}

export function verdictOf(record: CaptureRecord): InspectorVerdict {
  if (record.verdict.valid === true) return 'valid';
  if (record.verdict.valid === false) return 'refused';
  return 'unverified';
}

/** Refused captures may carry only the head of the body plus the digest of the whole. */
interface TruncationFields {
  bodyTruncated?: unknown;
  bodySha256?: unknown;
}

export function isTruncated(record: CaptureRecord): boolean {
  return (record as CaptureRecord & TruncationFields).bodyTruncated === true;
}

/** The recorded SHA-256 (hex) of the whole body when the capture kept only its head. */
export function recordedBodySha256(record: CaptureRecord): string | undefined {
  const value = (record as CaptureRecord & TruncationFields).bodySha256;
  return typeof value === 'string' ? value : undefined;
}

export function fromCaptureRecord(record: CaptureRecord, index: number): InspectorDelivery {
  return {
    index,
    id: record.id,
    receivedAt: record.receivedAt,
    type: typeof record.type === 'string' ? record.type : undefined,
    event: typeof record.event === 'string' ? record.event : undefined,
    entities: Array.isArray(record.entities) ? record.entities.filter((e) => typeof e === 'string') : undefined,
    userId: typeof record.userId === 'string' ? record.userId : undefined,
    verdict: verdictOf(record),
    code: record.verdict.code,
    message: record.verdict.message,
    status: record.verdict.status,
    method: typeof record.method === 'string' ? record.method.slice(0, 16) : '?',
    path: typeof record.path === 'string' ? record.path.slice(0, 200) : '?',
    replayOf: replayOf(record),
    editedFrom: isReplayMarker(record.editedFrom) ? record.editedFrom : undefined,
    cause: mismatchCause(record),
    bodyBytes: typeof record.bodyBytes === 'number' ? record.bodyBytes : Buffer.byteLength(record.body, 'base64'),
    bodyTruncated: isTruncated(record),
    claimed: claimedBody(record),
    record,
  };
}

/** A claimed value as the page shows it: short text (the body is hostile; the page makes it text). */
const short = (value: string, max: number) => (value.length > max ? `${value.slice(0, max)}…` : value);

/**
 * What a refused delivery says it is: the fields the listener read (a body whose signature verified
 * but whose bytes do not match), else the body read here through the one body parser (spec 2.1/2.2),
 * bounded: only bodies kept whole and small enough to be explained are read.
 */
function claimedBody(record: CaptureRecord): ClaimedBody | undefined {
  if (verdictOf(record) !== 'refused') return undefined;
  let body: Record<string, unknown> | undefined;
  if (typeof record.type === 'string') body = { ...record };
  else if (!isTruncated(record)) {
    const bytes = Buffer.from(record.body, 'base64');
    const parsed = bytes.length <= DIAGNOSE_MAX_BODY_BYTES ? parseWebhookBody(bytes) : undefined;
    body = parsed?.ok ? { ...parsed.body } : parsed?.code === 'unknown_type' ? parsed.value : undefined;
  }
  if (typeof body?.type !== 'string' || typeof body.userId !== 'string') return undefined;
  const claimed: ClaimedBody = { type: short(body.type, 40), userId: short(body.userId, 120) };
  if (typeof body.event === 'string') claimed.event = short(body.event, 80);
  if (Array.isArray(body.entities))
    claimed.entities = body.entities.slice(0, 24).map((entity: unknown) => short(String(entity), 60));
  return claimed;
}

/**
 * A body_mismatch is the first failure only once the signature verified (verification stops trusting
 * nothing before), so explaining it is never work done for a forgery; large or cut bodies are skipped.
 */
function mismatchCause(record: CaptureRecord): string | undefined {
  if (record.verdict.code !== 'body_mismatch' || isTruncated(record)) return undefined;
  const value = record.headers?.[record.headerName];
  const token = Array.isArray(value) ? value[0] : value;
  if (typeof token !== 'string') return undefined;
  const parsed = parseToken(token.replace(/^\s*[A-Za-z][\w-]{0,30}[ \t]+/, ''));
  const claim = parsed.ok ? parsed.parts.claims.request_body_sha256 : undefined;
  if (typeof claim !== 'string') return undefined;
  return shortMismatchCause(Buffer.from(record.body, 'base64'), claim);
}

/** The replay marker, when it reads as an id (the header arrives from the network like any other). */
function replayOf(record: CaptureRecord): string | undefined {
  const value = record.headers?.[REPLAY_OF_HEADER];
  const id = Array.isArray(value) ? value[0] : value;
  return isReplayMarker(id) ? id : undefined;
}

export function toSummary(delivery: InspectorDelivery): InspectorSummary {
  const { record: _record, ...summary } = delivery;
  return summary;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
