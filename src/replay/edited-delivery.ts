import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { type CaptureRecord, capturedHeaderValues, noteBodyNames } from '../capture/capture-record.js';
import { buildDelivery } from '../delivery/build-delivery.js';
import { sendDeliveries, type DeliveryOutcome } from '../delivery/send-deliveries.js';
import { LedgerhookError } from '../errors.js';
import { roundMs } from '../util/percentiles.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';
import type { SecretInput } from '@ledgerhook/webhooks';

import { checkEditedBody, checkEditedHeaders, EDITED_FROM_HEADER, UNEDITABLE_HEADERS } from './edit-checks.js';
import { assertResignable } from '../capture/original-token.js';
import { isReplayMarker } from './replay.js';

export interface EditedDeliveryOptions {
  original: CaptureRecord;
  /** The edited body as text; checked again here against the spec's shapes, whoever sent it. */
  body: string;
  /** The edited headers; default: the original's (without its token and connection headers). */
  headers?: unknown;
  url: URL;
  /** Always required: an edited delivery is always re-signed, never sent with the original token. */
  secret: string;
  /**
   * The secrets the ORIGINAL's token must verify with before an edit of it is signed (a rotation:
   * any of them); default: `secret` alone. See original-token.ts.
   */
  secrets?: readonly SecretInput[] | undefined;
  /** Header for the fresh token; default: the one the original was captured with. */
  headerName?: string | undefined;
  verificationPrefix?: string | undefined;
  maxBodyBytes?: number | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  now?: (() => number) | undefined;
}

export interface EditedDelivery {
  outcome: DeliveryOutcome;
  /** The capture line of what was sent: `editedFrom` links it to the original. */
  record: CaptureRecord;
}

const invalid = (problem: string, reason: 'edited_body_invalid' | 'edited_headers_invalid') =>
  new LedgerhookError('ERR_USAGE', `the edited delivery was not sent: ${problem}`, { details: { reason, problem } });

/** The original's headers as an edit starts from them: no token, no connection headers, one value each. */
export function editableHeaders(record: CaptureRecord): Record<string, string> {
  const skip = new Set([...UNEDITABLE_HEADERS, record.headerName.toLowerCase()]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(capturedHeaderValues(record)))
    if (!skip.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** A new id in the listener's form, so that captures list, select and link it like any other. */
function editedId(nowMs: number): string {
  return `dlv_${nowMs.toString(36)}${randomBytes(4).toString('hex')}`;
}

function recordOf(
  options: EditedDeliveryOptions,
  sent: { body: Uint8Array; headers: Record<string, string | string[]>; headerName: string },
  outcome: DeliveryOutcome,
  sentAt: number,
): CaptureRecord {
  const { original, url } = options;
  const body = Buffer.from(sent.body);
  const answer = outcome.ok
    ? { url: url.href, status: outcome.response.status, latencyMs: roundMs(outcome.response.latencyMs) }
    : { url: url.href, error: outcome.error.message };
  const record: CaptureRecord = {
    id: editedId(sentAt),
    receivedAt: new Date(sentAt).toISOString(),
    method: 'POST',
    path: `${url.pathname}${url.search}`,
    headers: sent.headers,
    headerName: sent.headerName,
    body: body.toString('base64'),
    bodyBytes: body.length,
    // Signed here with the environment's secret, yet it keeps its original's verdict: an edit of a
    // delivery refused (or never verified) at receipt is replayed later only under the same opt-in
    // flags as its original, never re-signed by default. status is the target's answer (0: none).
    verdict: {
      valid: original.verdict.valid,
      ...(original.verdict.code !== undefined ? { code: original.verdict.code } : {}),
      status: outcome.ok ? outcome.response.status : 0,
    },
    editedFrom: original.id,
    forward: answer,
  };
  noteBodyNames(record, parseWebhookBody(body));
  return record;
}

/**
 * Checks an edited body (and headers), re-signs it with the given secret and a fresh iat, and sends
 * it once. The edit is a new delivery of the person's making, never sent with the original token,
 * and made only from an original whose own token verifies now (the capture's verdict field is not
 * read). Nothing is sent when a check fails (ERR_USAGE, the problem; ERR_CHECK_FAILED, the token).
 */
export async function sendEditedDelivery(options: EditedDeliveryOptions): Promise<EditedDelivery> {
  const { original } = options;
  if (!options.secret)
    throw new LedgerhookError('ERR_USAGE', 'an edited delivery is re-signed, which needs the webhook secret', {
      details: { reason: 'replay_needs_secret' },
    });
  if (original.bodyTruncated === true)
    throw new LedgerhookError('ERR_USAGE', `delivery ${original.id}: only the head of its body was captured`, {
      details: { reason: 'capture_body_truncated', id: original.id },
    });
  const headerName = (options.headerName ?? original.headerName).toLowerCase();
  const body = checkEditedBody(options.body, options.maxBodyBytes);
  if (!body.ok) throw invalid(body.problem, 'edited_body_invalid');
  const edited = options.headers === undefined ? undefined : checkEditedHeaders(options.headers, headerName);
  if (edited && !edited.ok) throw invalid(edited.problem, 'edited_headers_invalid');
  await assertResignable([original], {
    secrets: options.secrets ?? [options.secret],
    verificationPrefix: options.verificationPrefix,
  });
  const now = options.now ?? Date.now;
  let sent: { body: Uint8Array; headers: Record<string, string | string[]>; headerName: string } | undefined;
  let sentAt = now();
  const { outcomes } = await sendDeliveries({
    url: options.url,
    count: 1,
    concurrency: 1,
    timeoutMs: options.timeoutMs,
    dispatcher: options.dispatcher,
    signal: options.signal,
    makeDelivery: async () => {
      const signed = await buildDelivery({
        body: body.value,
        secret: options.secret,
        headerName,
        verificationPrefix: options.verificationPrefix,
        now,
      });
      const base = edited?.value ?? editableHeaders(original);
      const token = signed.headers[headerName] ?? '';
      const headers: Record<string, string | string[]> = { ...signed.headers, ...base, [headerName]: token };
      if (isReplayMarker(original.id)) headers[EDITED_FROM_HEADER] = original.id;
      sentAt = now();
      sent = { body: signed.body, headers, headerName };
      return { body: signed.body, headers };
    },
  });
  const [outcome] = outcomes;
  if (!outcome || !sent) throw new LedgerhookError('ERR_ABORTED', 'the edited delivery was not sent: stopped');
  return { outcome, record: recordOf(options, sent, outcome, sentAt) };
}
