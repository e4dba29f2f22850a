import { captureBody } from '../capture/capture-record.js';
import { resolveTarget } from '../delivery/target.js';
import { LedgerhookError } from '../errors.js';
import { planReplay, replayDeliveries } from '../replay/replay.js';
import { curlCommand } from './curl-command.js';
import {
  editOffer,
  sendEdit,
  type EditAnswer,
  type EditOffer,
  type EditOptions,
  type EditRequest,
  withOutcome,
} from './edit-action.js';
import type { InspectorDelivery } from './inspector-delivery.js';

/** How a delivery is sent again: with a fresh token, or with the token it arrived with. */
export type ReplayMode = 'resigned' | 'as-captured';

export interface ReplayAnswer {
  url: string;
  mode: ReplayMode;
  status?: number | undefined;
  latencyMs?: number | undefined;
  body?: string | undefined;
  error?: string | undefined;
}

export interface InspectorActions {
  /** Which modes a delivery may be replayed in (the page greys out the others). */
  modesFor(delivery: InspectorDelivery): ReplayMode[];
  /**
   * `confirmRefused`: a refused delivery goes out (as captured) only when the person confirmed it,
   * naming its verdict, as the CLI's replay needs --include-refused.
   */
  replay(
    delivery: InspectorDelivery,
    target: string,
    mode: ReplayMode,
    confirmRefused?: boolean,
  ): Promise<ReplayAnswer>;
  curl(delivery: InspectorDelivery, target: string): string;
  /** Whether (and how) the page may offer "Edit and resend" for this delivery. */
  editOffer(delivery: InspectorDelivery): EditOffer;
  /** Sends an edited copy, always re-signed; refused as replay would refuse re-signing it. */
  edit(delivery: InspectorDelivery, request: EditRequest): Promise<EditAnswer>;
}

export interface ActionOptions extends Pick<EditOptions, 'headerName' | 'onSent'> {
  /** The re-signing secret. Stays in this process: the page only ever sees results. */
  secret?: string | undefined;
  /** Put before a re-signed token (the verificationPrefix setting), in replays and curl commands. */
  verificationPrefix?: string | undefined;
  timeoutMs?: number | undefined;
  /** The largest edited body sent, in UTF-8 bytes. */
  maxEditedBodyBytes?: number | undefined;
}

// `ledgerhook sign` reads the secret from this variable: the command never contains it.
const SECRET_ENV = 'LEDGERHOOK_WEBHOOK_SECRET';

/** Only a delivery that verified is re-signed, and only a whole body is sent at all. */
function replayModes(delivery: InspectorDelivery, secret: string | undefined): ReplayMode[] {
  return delivery.verdict === 'valid' && secret !== undefined && !delivery.bodyTruncated
    ? ['resigned', 'as-captured']
    : delivery.bodyTruncated
      ? []
      : ['as-captured'];
}

/** Why a mode the page greyed out was asked for anyway. */
function modeRefused(delivery: InspectorDelivery, mode: ReplayMode): LedgerhookError {
  return new LedgerhookError(
    'ERR_USAGE',
    delivery.bodyTruncated
      ? 'only the head of this body was captured: it cannot be replayed'
      : mode === 'resigned' && delivery.verdict !== 'valid'
        ? `this delivery was ${delivery.verdict === 'refused' ? 'refused' : 'not verified'}: it is replayed only as captured, never re-signed`
        : 're-signing needs the webhook secret, which this inspector was not given',
    { details: { reason: 'replay_mode_not_allowed', mode } },
  );
}

/** Sends one delivery again and turns its outcome into the page's answer. */
async function replayOne(
  delivery: InspectorDelivery,
  url: URL,
  mode: ReplayMode,
  options: ActionOptions,
): Promise<ReplayAnswer> {
  let answer: ReplayAnswer = { url: url.href, mode };
  // The replay library's own policy decides: a refused or unverified delivery is sent as captured.
  const plan = planReplay([delivery.record], {
    includeRefused: true,
    includeUnverified: true,
    asCaptured: mode === 'as-captured',
  });
  await replayDeliveries({
    planned: plan.send,
    url,
    secret: options.secret,
    verificationPrefix: options.verificationPrefix,
    timeoutMs: options.timeoutMs ?? 10_000,
    onProgress: ({ outcome }) => {
      answer = withOutcome(answer, outcome);
    },
  });
  return answer;
}

function curlFor(delivery: InspectorDelivery, target: string, options: ActionOptions): string {
  const { secret } = options;
  const url = resolveTarget(target).href;
  if (delivery.bodyTruncated)
    throw new LedgerhookError('ERR_USAGE', 'only the head of this body was captured: there is nothing exact to send', {
      details: { reason: 'replay_mode_not_allowed' },
    });
  const type = delivery.record.headers['content-type'];
  const original = delivery.record.headers[delivery.record.headerName];
  return curlCommand({
    url,
    body: captureBody(delivery.record),
    contentType: (Array.isArray(type) ? type[0] : type) ?? 'application/json',
    headerName: delivery.record.headerName,
    resign: replayModes(delivery, secret).includes('resigned'),
    token: Array.isArray(original) ? (original[0] ?? '') : (original ?? ''),
    secretEnv: SECRET_ENV,
    verificationPrefix: options.verificationPrefix,
  });
}

/**
 * Replay and copy-as-curl follow the CLI's rules: only a delivery that verified is re-signed; a
 * refused or unverified one goes out only as captured (its original token), never laundered.
 */
export function inspectorActions(options: ActionOptions = {}): InspectorActions {
  const modesFor = (delivery: InspectorDelivery): ReplayMode[] => replayModes(delivery, options.secret);
  const edits: EditOptions = { ...options, maxBodyBytes: options.maxEditedBodyBytes };
  return {
    modesFor,
    async replay(delivery, target, mode, confirmRefused = false) {
      const url = resolveTarget(target);
      if (!modesFor(delivery).includes(mode)) throw modeRefused(delivery, mode);
      if (delivery.verdict === 'refused' && !confirmRefused)
        throw new LedgerhookError(
          'ERR_USAGE',
          `this delivery was refused (${delivery.code ?? 'refused'}): sending it on needs an explicit confirmation`,
          { details: { reason: 'refused_replay_not_confirmed', code: delivery.code } },
        );
      return replayOne(delivery, url, mode, options);
    },
    curl: (delivery, target) => curlFor(delivery, target, options),
    // An edit is re-signed, so it is offered exactly where re-signing is: never for a refused delivery.
    editOffer: (delivery) =>
      editOffer(delivery, modesFor(delivery).includes('resigned'), modeRefused(delivery, 'resigned').message, edits),
    async edit(delivery, request) {
      if (!modesFor(delivery).includes('resigned')) throw modeRefused(delivery, 'resigned');
      return sendEdit(delivery, request, edits);
    },
  };
}
