/**
 * delivery/: one delivery on the wire, both ways: built and posted, and received.
 *   received-delivery.ts  the typed ReceivedDelivery every subscriber gets (this file)
 *   delivery-events.ts    its subscribers (capture, webhook-sync, the CLI printer, the inspector)
 *   build-delivery.ts     a delivery as the service sends it; post-webhook.ts, send-deliveries.ts post
 *                         it; target.ts refuses a target that is not what was typed
 *   receiver-case-table.ts the check-receiver battery as data; receiver-cases.ts builds its
 *                         deliveries, forge.ts its bad tokens, receiver-judge.ts what counts as
 *                         refused, check-receiver.ts runs it
 */
import type { ParsedWebhookBody } from '@ledgerhook/webhooks';

/** Header names in lower case; a repeated header keeps every value, in order. */
export type HeaderRecord = Record<string, string | string[]>;

/** What the listener decided about a delivery's signature. */
export interface DeliveryVerdict {
  /** null when no secret was configured and nothing was verified. */
  valid: boolean | null;
  code?: string | undefined;
  message?: string | undefined;
  /** Accepted, but worth a look (an iat in the future, say). */
  warnings: string[];
  /**
   * Standard Base64 SHA-256 of the body, when verification computed it: saves hashing a large body a
   * second time (one hash per delivery, forged or not).
   */
  bodySha256?: string | undefined;
  /**
   * The signature verified (whatever else failed): only then is a refused body worth parsing, keeping
   * whole (when small) or explaining. A forgery gets one hash and nothing more.
   */
  signatureVerified?: boolean | undefined;
  /** The request_body_sha256 claim, when the signature verified (to explain a body_mismatch later). */
  claimedBodySha256?: string | undefined;
}

export interface ForwardResult {
  /** The route's name, when listen has routes (`INVOICE_*`, `default`). */
  route?: string | undefined;
  url: string;
  status?: number | undefined;
  latencyMs?: number | undefined;
  error?: string | undefined;
}

/**
 * One delivery as the listener received and judged it: the single value every subscriber (capture
 * writer, webhook-sync, printer, inspector) gets. The raw bytes are kept as they arrived; the body
 * is parsed once, here, and nobody downstream decodes or parses it again.
 */
export interface ReceivedDelivery {
  id: string;
  /** Milliseconds since the epoch, when the last byte of the body arrived. */
  receivedAtMs: number;
  /** The same instant in ISO 8601 UTC. */
  receivedAt: string;
  method: string;
  path: string;
  headers: HeaderRecord;
  /** Which header carried the token (the configured name, lower case). */
  headerName: string;
  body: Buffer;
  /** The body checked against spec 2.1/2.2, or why it is not a webhook body. Untrusted unless verdict.valid. */
  parsed: ParsedWebhookBody;
  verdict: DeliveryVerdict;
  /** The status answered to the sender. */
  status: number;
  /** The one forward's result (a single route, answered before the sender was). */
  forward?: ForwardResult | undefined;
  /** Every route's result, when routes were forwarded before the answer. */
  forwards?: ForwardResult[] | undefined;
  /** With retries: the routes the delivery is due at, forwarded after the answer (attempts follow). */
  forwarding?: Array<{ route: string; url: string }> | undefined;
}

/** A request answered without being judged as a delivery (wrong path or method, too large, no room). */
export interface RefusedRequest {
  method: string;
  path: string;
  /** 0 when the sender went away before an answer. */
  status: number;
  reason: string;
}
