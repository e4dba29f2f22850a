/**
 * replay/: captures sent again under the verdict policy (a forgery is never laundered), and edit
 * and resend.
 *   replay.ts, replay-plan.ts  what is sent and how (re-signed, or with its original token)
 *   edit-checks.ts             an edited body and headers checked (pure: the inspector page runs it
 *                              too, with json-syntax.ts naming where JSON breaks)
 *   edited-delivery.ts         an edit always re-signed, sent once, its capture line with editedFrom
 *   captured-delivery.ts       how a capture's original verdict reads
 */
import type { Dispatcher } from 'undici';
import { type CaptureRecord, capturedHeaderValues } from '../capture/capture-record.js';
import { LedgerhookError } from '../errors.js';
import type { OutgoingDelivery } from '../delivery/build-delivery.js';
import { buildDelivery } from '../delivery/build-delivery.js';
import { sendDeliveries, type DeliveryOutcome, type SendSummary } from '../delivery/send-deliveries.js';
import { delay } from '../util/delay.js';
import type { SecretInput } from '@ledgerhook/webhooks';

import { CONNECTION_HEADERS } from '../util/header-name.js';
import { assertResignable } from '../capture/original-token.js';
import type { PlannedReplay } from './replay-plan.js';

export { planReplay, type PlannedReplay, type ReplayMode, type ReplayPlan, type ReplayPolicy } from './replay-plan.js';

export interface ReplayOptions {
  /** What to send and how, from planReplay (which applies the verdict policy). */
  planned: readonly PlannedReplay[];
  url: URL;
  /** Needed when any planned delivery is re-signed: the fresh tokens are signed with it. */
  secret?: string | undefined;
  /**
   * The secrets an original token must verify with before its delivery is re-signed (a rotation:
   * any of them); default: `secret` alone. See original-token.ts for the checks that apply.
   */
  secrets?: readonly SecretInput[] | undefined;
  /** Header name for the token; default: the one each capture was received with. */
  headerName?: string | undefined;
  /** Put before a re-signed token, as the service would (the verificationPrefix setting); default none. */
  verificationPrefix?: string | undefined;
  concurrency?: number | undefined;
  /** Pause between deliveries, in ms (only with concurrency 1, so that order is kept). */
  delayMs?: number | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  now?: (() => number) | undefined;
  onProgress?: ((event: { planned: PlannedReplay; outcome: DeliveryOutcome }) => void) | undefined;
}

/** Headers that belong to the original connection, not to the delivery. */
const NOT_REPLAYED = new Set(CONNECTION_HEADERS);

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function capturedHeaders(record: CaptureRecord, keepCopies: boolean): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(capturedHeaderValues(record))) {
    if (!NOT_REPLAYED.has(name) && name !== record.headerName.toLowerCase())
      headers[name] = Array.isArray(value) && !keepCopies ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Every replay names its original, so that a listener capturing it (and the inspector) shows it as a
 * replay of that delivery rather than as a new one. Only a marker for display: anyone can send it.
 */
export const REPLAY_OF_HEADER = 'ledgerhook-replay-of';

/**
 * An id that may travel in that header and be shown as a link: the listener's own ids are; an id
 * edited into a capture file (control characters, a header's worth of text) is not, and then no
 * marker is sent rather than a delivery failing on it.
 */
export function isReplayMarker(id: unknown): id is string {
  return typeof id === 'string' && /^[\w.-]{1,80}$/.test(id);
}

/** The records of the planned deliveries that go out re-signed. */
export function resignedRecords(planned: readonly PlannedReplay[]): CaptureRecord[] {
  return planned.filter((entry) => entry.mode === 're-signed').map((entry) => entry.record);
}

async function replayDelivery(planned: PlannedReplay, options: ReplayOptions): Promise<OutgoingDelivery> {
  const { record, body } = planned;
  const asCaptured = planned.mode === 'as-captured';
  const headers = capturedHeaders(record, asCaptured);
  if (isReplayMarker(record.id)) headers[REPLAY_OF_HEADER] = record.id;
  const headerName = (options.headerName ?? record.headerName).toLowerCase();
  if (asCaptured) {
    // As captured means every copy of every header, in order: a delivery refused for a duplicated
    // verification header must reach the receiver duplicated, not as the one copy it would accept.
    const original = capturedHeaderValues(record)[record.headerName.toLowerCase()];
    if (original !== undefined) headers[headerName] = original;
    return { body, headers };
  }
  const signed = await buildDelivery({
    body,
    secret: options.secret,
    headerName,
    verificationPrefix: options.verificationPrefix,
    now: options.now,
  });
  const contentType = first(headers['content-type']);
  return { body, headers: { ...headers, ...signed.headers, 'content-type': contentType ?? 'application/json' } };
}

/**
 * Replays planned deliveries byte-exact: re-signed ones get a fresh iat so that an old capture
 * still verifies; as-captured ones carry their original token unchanged. Nothing is sent when any
 * delivery to be re-signed has an original token that does not verify now (assertResignable).
 */
export async function replayDeliveries(
  options: ReplayOptions,
): Promise<{ outcomes: DeliveryOutcome[]; summary: SendSummary }> {
  const planned = options.planned;
  if (planned.some((entry) => entry.mode === 're-signed') && !options.secret)
    throw new LedgerhookError('ERR_USAGE', 're-signing needs the webhook secret', {
      details: { reason: 'replay_needs_secret' },
    });
  await assertResignable(resignedRecords(planned), {
    secrets: options.secrets ?? (options.secret === undefined ? [] : [options.secret]),
    verificationPrefix: options.verificationPrefix,
  });
  const delayMs = options.delayMs ?? 0;
  return sendDeliveries({
    url: options.url,
    count: planned.length,
    concurrency: delayMs > 0 ? 1 : (options.concurrency ?? 1),
    makeDelivery: async (index) => {
      const entry = planned[index];
      if (!entry) throw new LedgerhookError('ERR_USAGE', `no planned delivery ${index}`);
      if (delayMs > 0 && index > 0) await delay(delayMs, options.signal);
      return replayDelivery(entry, options);
    },
    timeoutMs: options.timeoutMs,
    dispatcher: options.dispatcher,
    signal: options.signal,
    onProgress: ({ outcome }) => {
      const entry = planned[outcome.index];
      if (entry) options.onProgress?.({ planned: entry, outcome });
    },
  });
}
