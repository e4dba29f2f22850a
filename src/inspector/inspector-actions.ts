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
import { verifyOriginalToken } from '../capture/original-token.js';
import type { SecretInput } from '@ledgerhook/webhooks';

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
  modesFor(delivery: InspectorDelivery): Promise<ReplayMode[]>;
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
  curl(delivery: InspectorDelivery, target: string): Promise<string>;
  /** Whether (and how) the page may offer "Edit and resend" for this delivery. */
  editOffer(delivery: InspectorDelivery): Promise<EditOffer>;
  /** Sends an edited copy, always re-signed; refused as replay would refuse re-signing it. */
  edit(delivery: InspectorDelivery, request: EditRequest): Promise<EditAnswer>;
}

export interface ActionOptions extends Pick<EditOptions, 'headerName' | 'onSent'> {
  /** The re-signing secret. Stays in this process: the page only ever sees results. */
  secret?: string | undefined;
  /**
   * The secrets an original token must verify with before its delivery is re-signed (a rotation:
   * any of them); default: `secret` alone.
   */
  secrets?: readonly SecretInput[] | undefined;
  /** Put before a re-signed token (the verificationPrefix setting), in replays and curl commands. */
  verificationPrefix?: string | undefined;
  timeoutMs?: number | undefined;
  /** The largest edited body sent, in UTF-8 bytes. */
  maxEditedBodyBytes?: number | undefined;
}

// `ledgerhook sign` reads the secret from this variable: the command never contains it.
const SECRET_ENV = 'LEDGERHOOK_WEBHOOK_SECRET';

/**
 * Why this delivery may not be re-signed here, or undefined when it may: its original token must
 * verify now with the inspector's secrets (original-token.ts), whatever the capture's verdict says.
 */
async function whyNotResigned(delivery: InspectorDelivery, options: ActionOptions): Promise<string | undefined> {
  if (delivery.bodyTruncated) return 'only the head of this body was captured: it cannot be replayed';
  if (options.secret === undefined) return 're-signing needs the webhook secret, which this inspector was not given';
  const verdict = await verifyOriginalToken(delivery.record, {
    secrets: options.secrets ?? [options.secret],
    verificationPrefix: options.verificationPrefix,
  });
  return verdict.ok
    ? undefined
    : `its original token does not verify with this inspector's secret (${verdict.code}): it is replayed only as captured, never re-signed`;
}

function modeRefused(why: string, mode: ReplayMode): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', why, { details: { reason: 'replay_mode_not_allowed', mode } });
}

/** Sends one delivery again and turns its outcome into the page's answer. */
async function replayOne(
  delivery: InspectorDelivery,
  url: URL,
  mode: ReplayMode,
  options: ActionOptions,
): Promise<ReplayAnswer> {
  let answer: ReplayAnswer = { url: url.href, mode };
  // The replay library decides how, and refuses to re-sign what modesFor would not offer.
  const plan = planReplay([delivery.record], {
    includeRefused: true,
    includeUnverified: true,
    resignRefused: mode === 'resigned',
    asCaptured: mode === 'as-captured',
  });
  await replayDeliveries({
    planned: plan.send,
    url,
    secret: options.secret,
    secrets: options.secrets,
    verificationPrefix: options.verificationPrefix,
    timeoutMs: options.timeoutMs ?? 10_000,
    onProgress: ({ outcome }) => {
      answer = withOutcome(answer, outcome);
    },
  });
  return answer;
}

async function curlFor(delivery: InspectorDelivery, target: string, options: ActionOptions): Promise<string> {
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
    resign: (await whyNotResigned(delivery, options)) === undefined,
    token: Array.isArray(original) ? (original[0] ?? '') : (original ?? ''),
    secretEnv: SECRET_ENV,
    verificationPrefix: options.verificationPrefix,
  });
}

/**
 * Replay and copy-as-curl follow the CLI's rules: only a delivery whose original token verifies now
 * is re-signed; any other goes out only as captured (its original token), never laundered.
 */
export function inspectorActions(options: ActionOptions = {}): InspectorActions {
  const modesFor = async (delivery: InspectorDelivery): Promise<ReplayMode[]> => {
    if (delivery.bodyTruncated) return [];
    return (await whyNotResigned(delivery, options)) === undefined ? ['resigned', 'as-captured'] : ['as-captured'];
  };
  const edits: EditOptions = { ...options, maxBodyBytes: options.maxEditedBodyBytes };
  return {
    modesFor,
    async replay(delivery, target, mode, confirmRefused = false) {
      const url = resolveTarget(target);
      if (!(await modesFor(delivery)).includes(mode))
        throw modeRefused((await whyNotResigned(delivery, options)) ?? 'this mode is not offered', mode);
      if (delivery.verdict === 'refused' && !confirmRefused)
        throw new LedgerhookError(
          'ERR_USAGE',
          `this delivery was refused (${delivery.code ?? 'refused'}): sending it on needs an explicit confirmation`,
          { details: { reason: 'refused_replay_not_confirmed', code: delivery.code } },
        );
      return replayOne(delivery, url, mode, options);
    },
    curl: (delivery, target) => curlFor(delivery, target, options),
    // An edit is re-signed, so it is offered exactly where re-signing is.
    async editOffer(delivery) {
      const why = await whyNotResigned(delivery, options);
      return editOffer(delivery, why === undefined, why, edits);
    },
    async edit(delivery, request) {
      const why = await whyNotResigned(delivery, options);
      if (why !== undefined) throw modeRefused(why, 'resigned');
      return sendEdit(delivery, request, edits);
    },
  };
}
