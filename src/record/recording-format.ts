import { isObject } from '../util/is-object.js';

/**
 * A recording is a directory: `recording.jsonl`, the timeline (a header line, then one line per
 * exchange with the API and one mark per webhook delivery, each with a sequence number), and
 * `deliveries.jsonl`, the deliveries themselves as a capture file (so every `captures` command and
 * `inspect` read it). Every value that could be personal was redacted before it was written.
 */
export const RECORDING_FILE = 'recording.jsonl';
export const DELIVERIES_FILE = 'deliveries.jsonl';
export const RECORDING_FORMAT = 1;

export interface RecordingHeader {
  kind: 'recording';
  format: typeof RECORDING_FORMAT;
  startedAt: string;
  /** The API root the requests were forwarded to (no credentials, no query). */
  baseUrl: string;
  /** Its path: every recorded path is relative to it (`/expenses/expenses`). */
  basePath: string;
  /** How values were redacted: the key's id (never the key) and the user's rules beside the defaults. */
  redaction: { keyId: string; fields: string[] };
  /** The entity list paths set where the recording was made (`paths.expense`), so that a replay knows what a path serves. */
  paths?: Record<string, string> | undefined;
}

/** The paging headers of spec 4.3 a request sent (never Authorization). */
export interface RecordedPaging {
  limit?: string;
  cursor?: string;
  lastUpdatedDate?: string;
}

export interface RecordedExchange {
  kind: 'exchange';
  seq: number;
  /** When the request arrived (ISO 8601, the recorder's clock). */
  at: string;
  /** How long the service took to answer, in ms. */
  ms: number;
  method: string;
  /** Relative to the base path, e.g. /expenses/expenses. */
  path: string;
  /** The query string without its `?` (the dataset's filter, rule 6). */
  query: string;
  request: RecordedPaging;
  /** What the service answered; 0 when it could not be reached (then `error` says why). */
  status: number;
  /** The answer's headers that matter (content type, Retry-After, rate limits, Location). */
  headers: Record<string, string>;
  /** The answer, when it was JSON: redacted. */
  body?: unknown;
  /** The answer's head, when it was not JSON: redacted as text. */
  text?: string;
  bodyBytes: number;
  /** The answer was larger than a recording keeps: forwarded, not recorded. */
  bodyOmitted?: boolean;
  error?: string;
  /** How many values were redacted. */
  redacted: number;
}

/** Where a webhook delivery (a line of deliveries.jsonl, by id) falls in the timeline. */
export interface RecordedDeliveryMark {
  kind: 'delivery';
  seq: number;
  at: string;
  id: string;
}

export type RecordingLine = RecordingHeader | RecordedExchange | RecordedDeliveryMark;

const MAX_PATH = 2048;
/** A header's worth (Node refuses request headers past 16 KiB in all). */
const MAX_TEXT = 16_384;
/** Control characters never come from a real recording: they could drive a terminal. */
const CONTROL = /\p{Cc}/u;

const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length <= max && !CONTROL.test(value);
const isTime = (value: unknown): value is string => isText(value, 40) && Number.isFinite(Date.parse(value));
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export function isRecordingHeader(value: unknown): value is RecordingHeader {
  return (
    isObject(value) &&
    value.kind === 'recording' &&
    value.format === RECORDING_FORMAT &&
    isTime(value.startedAt) &&
    isText(value.baseUrl, MAX_PATH) &&
    isText(value.basePath, MAX_PATH) &&
    isObject(value.redaction) &&
    isText(value.redaction.keyId, 64) &&
    Array.isArray(value.redaction.fields) &&
    value.redaction.fields.length <= 200 &&
    value.redaction.fields.every((field) => isText(field, MAX_PATH)) &&
    (value.paths === undefined ||
      (isObject(value.paths) &&
        Object.keys(value.paths).length <= 100 &&
        Object.values(value.paths).every((path) => isText(path, MAX_PATH))))
  );
}

function isPaging(value: unknown): value is RecordedPaging {
  return (
    isObject(value) &&
    (['limit', 'cursor', 'lastUpdatedDate'] as const).every(
      (name) => value[name] === undefined || isText(value[name], MAX_TEXT),
    )
  );
}

function isHeaderMap(value: unknown): value is Record<string, string> {
  return (
    isObject(value) &&
    Object.keys(value).length <= 64 &&
    Object.entries(value).every(([name, text]) => /^[a-z0-9-]{1,64}$/.test(name) && isText(text, MAX_TEXT))
  );
}

/** Every field checked: a recording is a file anyone may have written. */
export function isRecordedExchange(value: unknown): value is RecordedExchange {
  return (
    isObject(value) &&
    value.kind === 'exchange' &&
    isCount(value.seq) &&
    isTime(value.at) &&
    isCount(value.ms) &&
    isText(value.method, 16) &&
    isText(value.path, MAX_PATH) &&
    value.path.startsWith('/') &&
    isText(value.query, MAX_PATH) &&
    isPaging(value.request) &&
    isCount(value.status) &&
    value.status <= 599 &&
    isHeaderMap(value.headers) &&
    (value.text === undefined || typeof value.text === 'string') &&
    isCount(value.bodyBytes) &&
    (value.error === undefined || typeof value.error === 'string') &&
    isCount(value.redacted)
  );
}

export function isDeliveryMark(value: unknown): value is RecordedDeliveryMark {
  return (
    isObject(value) && value.kind === 'delivery' && isCount(value.seq) && isTime(value.at) && isText(value.id, 200)
  );
}
