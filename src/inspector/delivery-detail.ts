import { captureBody } from '../capture/capture-record.js';
import type { AttemptRecord, RouteStanding } from '../capture/attempt-record.js';
import { routeStandings } from '../capture/route-standings.js';
import { isRedactedRecord } from '../redact/redact-capture.js';
import { firstDifferenceFromSigned } from '@ledgerhook/webhooks/advanced';
import { DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { bodySha256Base64 } from '@ledgerhook/webhooks';
import type { SecretInput } from '@ledgerhook/webhooks';
import { parseToken } from '@ledgerhook/webhooks/advanced';
import { verifyWebhook, type VerifyCheck } from '@ledgerhook/webhooks';
import {
  sha256Hex,
  recordedBodySha256,
  toSummary,
  type InspectorDelivery,
  type InspectorSummary,
} from './inspector-delivery.js';

/** Everything the detail view shows. Built on the server: no secret ever leaves it. */
export interface DeliveryDetail extends InspectorSummary {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  headerName: string;
  token: DecodedToken | null;
  /** The verify checklist at the time of receipt; null when no secret is known here. */
  checks: VerifyCheck[] | null;
  hints: string[];
  warnings: string[];
  body: BodyView;
  forward?: { url: string; status?: number; latencyMs?: number; error?: string } | undefined;
  /** Where each route stands (listen with routes or --retry): its last answer, or that it is still due. */
  routes: RouteStanding[];
  /** Every forward attempt made after the answer (listen --retry), in order. */
  attempts: AttemptRecord[];
  syncs: SyncResult[];
}

export interface DecodedToken {
  header: Record<string, unknown> | null;
  claims: Record<string, unknown> | null;
  /** Why the token does not decode, when it does not. */
  problem?: string | undefined;
  /** iat as an ISO date, and its age at receipt in seconds. */
  iatDate?: string | undefined;
  ageAtReceiptSeconds?: number | undefined;
}

export interface BodyView {
  /** The stored bytes as UTF-8 text (what `--raw` writes, decoded for display). */
  text: string;
  /** Pretty-printed JSON, when the body is JSON. */
  pretty: string | null;
  bytes: number;
  storedBytes: number;
  truncated: boolean;
  sha256Hex: string;
  sha256Base64: string;
  /** false when the bytes are not valid UTF-8: `text` then cannot show them exactly, `base64` does. */
  utf8: boolean;
  /** The stored bytes, exactly, in Base64 (only when they are not UTF-8, to keep the answer small). */
  base64: string | null;
  /**
   * For a body_mismatch explained by a re-serialisation: the offset in `text` of the first character
   * that differs from what was signed, and the signed text from there. The page opens on Raw, marked.
   */
  difference?: { at: number; signedFromThere: string } | undefined;
}

/** A sync that a delivery triggered (listen --sync), as reported by the webhook-driven sync. */
export interface SyncResult {
  entity: string;
  ok: boolean;
  summary: string;
}

export interface DetailOptions {
  /** Secrets to re-run the verify checklist with; never sent anywhere. */
  secrets?: readonly SecretInput[] | undefined;
  toleranceSeconds?: number | undefined;
  /** The listener's verificationPrefix, so that the re-run checklist reads the header as it did. */
  verificationPrefix?: string | undefined;
  syncs?: SyncResult[] | undefined;
}

/** What the page says of a delivery whose personal data was redacted before it was written or shown. */
export const REDACTED_HINT =
  'redacted: personal values are keyed hashes and the token was dropped with them; the verdict is the one at receipt';

function tokenOf(delivery: InspectorDelivery): string | undefined {
  const value = delivery.record.headers[delivery.record.headerName];
  return Array.isArray(value) ? value[0] : value;
}

function decodeToken(token: string | undefined, receivedAtMs: number): DecodedToken | null {
  if (token === undefined || token.trim() === '') return null;
  const parsed = parseToken(token);
  if (!parsed.ok) return { header: null, claims: null, problem: parsed.reason };
  const { header, claims } = parsed.parts;
  const iat = claims.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(iat) > 8.64e12) return { header, claims };
  return {
    header,
    claims,
    iatDate: new Date(iat * 1000).toISOString(),
    // A capture file's receivedAt is text: when it is not a date, the age is unknown, not NaN.
    ageAtReceiptSeconds: Number.isFinite(receivedAtMs) ? Math.floor(receivedAtMs / 1000) - iat : undefined,
  };
}

/** The claimed body hash, read from the token without trusting it (only to explain a mismatch). */
function decodedClaim(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const parsed = parseToken(token.replace(/^\s*[A-Za-z][\w-]{0,30}[ \t]+/, ''));
  const claim = parsed.ok ? parsed.parts.claims.request_body_sha256 : undefined;
  return typeof claim === 'string' ? claim : undefined;
}

function bodyView(delivery: InspectorDelivery): BodyView {
  const bytes = captureBody(delivery.record);
  const text = bytes.toString('utf8');
  const utf8 = Buffer.from(text, 'utf8').equals(bytes);
  let pretty: string | null = null;
  try {
    pretty = delivery.bodyTruncated ? null : JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    pretty = null;
  }
  return {
    text,
    pretty,
    bytes: delivery.bodyBytes,
    storedBytes: bytes.length,
    truncated: delivery.bodyTruncated,
    // A cut body's own digest would mislead: show the recorded digest of the whole body.
    sha256Hex: (delivery.bodyTruncated ? recordedBodySha256(delivery.record) : undefined) ?? sha256Hex(bytes),
    sha256Base64: delivery.bodyTruncated ? '' : bodySha256Base64(bytes),
    utf8,
    base64: utf8 ? null : bytes.toString('base64'),
  };
}

/**
 * The detail of one delivery. With secrets, the verify checklist is re-run as of the moment the
 * delivery arrived (so that "expired" means expired then, not now); without, the recorded verdict stands.
 */
export async function deliveryDetail(
  delivery: InspectorDelivery,
  options: DetailOptions = {},
): Promise<DeliveryDetail> {
  const { record } = delivery;
  const receivedAtMs = Date.parse(record.receivedAt);
  const token = tokenOf(delivery);
  let checks: VerifyCheck[] | null = null;
  let hints: string[] = [];
  let warnings: string[] = [];
  let message = delivery.message;
  const secrets = options.secrets ?? [];
  // A redacted line has no token left to check (and a body it was never signed over): its verdict at receipt stands.
  const redacted = isRedactedRecord(record);
  if (redacted) hints = [REDACTED_HINT];
  if (secrets.length > 0 && !delivery.bodyTruncated && !redacted) {
    const result = await verifyWebhook({
      body: captureBody(record),
      token,
      secrets,
      toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
      verificationPrefix: options.verificationPrefix,
      now: () => (Number.isFinite(receivedAtMs) ? receivedAtMs : Date.now()),
    });
    checks = result.checks;
    hints = result.ok ? [] : result.hints;
    warnings = result.warnings;
    // The re-run explains (the listener did not, on its answer path): its headline names the cause.
    if (!result.ok && result.code === delivery.code) message = result.message;
  }
  const body = bodyView(delivery);
  const claim = decodedClaim(token);
  if (delivery.code === 'body_mismatch' && claim !== undefined && !delivery.bodyTruncated)
    body.difference = firstDifferenceFromSigned(captureBody(record), claim);
  return {
    ...toSummary(delivery),
    message,
    method: record.method,
    path: record.path,
    headers: record.headers,
    headerName: record.headerName,
    token: decodeToken(token, receivedAtMs),
    checks,
    hints,
    warnings,
    body,
    forward: record.forward,
    routes: routeStandings(record),
    attempts: record.attempts ?? [],
    syncs: options.syncs ?? [],
  };
}
