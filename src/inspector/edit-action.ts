import type { CaptureRecord } from '../capture/capture-record.js';
import { resolveTarget } from '../delivery/target.js';
import { DEFAULT_MAX_EDITED_BODY_BYTES } from '../replay/edit-checks.js';
import { editableHeaders, sendEditedDelivery } from '../replay/edited-delivery.js';
import { roundMs } from '../util/percentiles.js';
import type { SecretInput } from '@ledgerhook/webhooks';
import type { InspectorDelivery } from './inspector-delivery.js';

/** What the page needs to offer an edit: never the secret, only whether one is held here. */
export interface EditOffer {
  /** False when this delivery cannot be edited here; `why` says why. */
  allowed: boolean;
  why?: string | undefined;
  /** The header the fresh token goes in (not editable). */
  headerName: string;
  /** The headers the edit starts from: the original's, without its token and connection headers. */
  headers: Record<string, string>;
  maxBodyBytes: number;
}

export interface EditRequest {
  to: string;
  body: string;
  headers?: unknown;
}

export interface EditAnswer {
  url: string;
  /** The id of the delivery that was sent (its capture line links to the original). */
  id: string;
  editedFrom: string;
  status?: number | undefined;
  latencyMs?: number | undefined;
  body?: string | undefined;
  error?: string | undefined;
}

export interface EditOptions {
  secret?: string | undefined;
  /** The secrets the original's token must verify with (default: `secret` alone). */
  secrets?: readonly SecretInput[] | undefined;
  verificationPrefix?: string | undefined;
  /** Header for the fresh token; default: the one the original was captured with. */
  headerName?: string | undefined;
  maxBodyBytes?: number | undefined;
  timeoutMs?: number | undefined;
  /** Called with the capture line of each edited delivery sent (the CLI writes it and lists it). */
  onSent?: ((record: CaptureRecord) => Promise<void> | void) | undefined;
}

export function editOffer(
  delivery: InspectorDelivery,
  allowed: boolean,
  why: string | undefined,
  options: EditOptions,
): EditOffer {
  return {
    allowed,
    why: allowed ? undefined : why,
    headerName: (options.headerName ?? delivery.record.headerName).toLowerCase(),
    headers: delivery.bodyTruncated ? {} : editableHeaders(delivery.record),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_EDITED_BODY_BYTES,
  };
}

/**
 * Sends an edited delivery: checked again here (the page is never trusted), always re-signed with
 * this process's secret, recorded with `editedFrom` before the answer goes back to the page.
 */
export async function sendEdit(
  delivery: InspectorDelivery,
  request: EditRequest,
  options: EditOptions,
): Promise<EditAnswer> {
  const url = resolveTarget(request.to);
  const { outcome, record } = await sendEditedDelivery({
    original: delivery.record,
    body: request.body,
    headers: request.headers,
    url,
    secret: options.secret ?? '',
    secrets: options.secrets,
    headerName: options.headerName,
    verificationPrefix: options.verificationPrefix,
    maxBodyBytes: options.maxBodyBytes,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  await options.onSent?.(record);
  return withOutcome<EditAnswer>({ url: url.href, id: record.id, editedFrom: delivery.id }, outcome);
}

/** What a send answered, as the page shows it (replay and edit alike): status, latency, body, or the error. */
export function withOutcome<T extends object>(
  answer: T,
  outcome:
    | { ok: true; response: { status: number; latencyMs: number; bodyExcerpt?: string | undefined } }
    | { ok: false; error: { message: string } },
): T & { status?: number; latencyMs?: number; body?: string | undefined; error?: string } {
  return outcome.ok
    ? {
        ...answer,
        status: outcome.response.status,
        latencyMs: roundMs(outcome.response.latencyMs),
        body: outcome.response.bodyExcerpt,
      }
    : { ...answer, error: outcome.error.message };
}
