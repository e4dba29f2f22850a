import type { CaptureRecord } from '../capture/capture-record.js';
import type { Redactor } from './redactor.js';

/** What a redacted capture line says about itself: which key hashed it, how many values were replaced. */
export interface RedactionMark {
  keyId: string;
  replaced: number;
  /** The body was not JSON (or was cut): it was dropped whole, its length kept. */
  bodyDropped?: true;
}

export type RedactedCaptureRecord = CaptureRecord & { redaction: RedactionMark };

/** Headers that carry credentials, never kept in a redacted line. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export function isRedactedRecord(record: CaptureRecord): record is RedactedCaptureRecord {
  const mark = (record as Partial<RedactedCaptureRecord>).redaction;
  return typeof mark === 'object' && mark !== null && typeof mark.keyId === 'string';
}

/**
 * A delivery's capture line with its personal data replaced, before it reaches a disk or a page. The
 * verification token goes too: its request_body_sha256 is a fingerprint of the original body, and the
 * redacted body no longer matches it anyway. The verdict stays as it was at receipt ("verified at
 * receipt"); whoever sends the body again re-signs it. A body that is not JSON cannot be redacted field
 * by field, so it is dropped whole (its length kept).
 */
export function redactCaptureRecord(record: CaptureRecord, redactor: Redactor): RedactedCaptureRecord {
  if (isRedactedRecord(record)) return record;
  const { bodySha256: _digest, ...rest } = record;
  const token = record.headerName.toLowerCase();
  const headers: CaptureRecord['headers'] = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (name === token || CREDENTIAL_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.map(redactor.text) : redactor.text(value);
  }
  const mark: RedactionMark = { keyId: redactor.keyId, replaced: 0 };
  let body = '';
  let parsed: unknown;
  let json = record.bodyTruncated !== true;
  if (json) {
    try {
      parsed = JSON.parse(Buffer.from(record.body, 'base64').toString('utf8'));
    } catch {
      json = false;
    }
  }
  const out: RedactedCaptureRecord = { ...rest, path: redactor.text(record.path), headers, body, redaction: mark };
  if (json) {
    const redacted = redactor.json(parsed);
    mark.replaced = redacted.replaced;
    const bytes = Buffer.from(JSON.stringify(redacted.value), 'utf8');
    body = bytes.toString('base64');
    out.body = body;
    out.bodyBytes = bytes.length;
  } else {
    mark.bodyDropped = true;
    out.bodyTruncated = true;
  }
  return out;
}
