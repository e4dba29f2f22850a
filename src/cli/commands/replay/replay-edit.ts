import { appendCaptureRecord } from '../../../capture/append-record.js';
import type { CaptureRecord } from '../../../capture/capture-record.js';
import { selectCaptures } from '../../../capture/read-captures.js';
import { resolveTarget } from '../../../delivery/target.js';
import { LedgerhookError, usageError } from '../../../errors.js';
import { describeVerdict } from '../../../replay/captured-delivery.js';
import { sendEditedDelivery } from '../../../replay/edited-delivery.js';
import { assertResignable } from '../../../capture/original-token.js';
import { planReplay } from '../../../replay/replay.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import { describeRecord } from '../../delivery-line.js';
import { editInEditor } from '../../edit-in-editor.js';
import { printable, printableLine } from '../../render-delivery.js';
import { requireWebhookSecrets, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';
import type { ReplayCommandOptions } from './definition.js';

/** The one delivery an edit starts from: the selection must name exactly one. */
function selectOne(options: ReplayCommandOptions, records: readonly CaptureRecord[]): CaptureRecord {
  if (options.asCaptured)
    throw usageError(
      '--edit sends a new delivery, always re-signed: it does not go with --as-captured',
      'conflicting_flags',
    );
  if (options.dryRun)
    throw usageError('--edit sends what you edit: it does not go with --dry-run', 'conflicting_flags');
  const selected = selectCaptures(records, options);
  if (selected.length > 1)
    throw usageError(`--edit edits one delivery and the selection holds ${selected.length}`, 'edit_needs_one_delivery');
  // The replay policy decides as for any replay: a refused delivery is re-signed only when asked to.
  const [planned] = planReplay(selected, options).send;
  if (!planned) throw usageError('no captured delivery matches: nothing to edit', 'nothing_selected');
  if (planned.mode !== 're-signed')
    throw new LedgerhookError(
      'ERR_USAGE',
      `delivery ${planned.record.id} was ${describeVerdict(planned.record)}: an edit is re-signed, which that needs --resign-refused`,
      { details: { reason: 'replay_mode_not_allowed', mode: 're-signed' } },
    );
  return planned.record;
}

/** The body as the editor gets it: the captured text, byte for byte (no reformatting that could change numbers). */
function bodyText(record: CaptureRecord): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(record.body, 'base64'));
  } catch {
    throw usageError(
      `delivery ${record.id}: its body is not UTF-8 text, so it cannot be edited`,
      'edited_body_invalid',
    );
  }
}

/**
 * `replay --edit`: the selected delivery's body in $EDITOR, checked (spec 2.1/2.2), re-signed with the
 * environment's secret and sent as a new delivery; its capture line, with editedFrom naming the
 * original, is appended to the capture file (--capture, else the file it was read from).
 */
export async function runEdit(
  options: ReplayCommandOptions,
  ctx: CliContext,
  records: readonly CaptureRecord[],
): Promise<void> {
  if (options.to === undefined) throw usageError('replay --edit needs --to TARGET', 'missing_target');
  const url = resolveTarget(options.to);
  const original = selectOne(options, records);
  const secrets = await requireWebhookSecrets(options, ctx);
  const headerName = await resolveHeaderName(options, ctx, '');
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  // Before the editor opens: an edit is made only from a delivery whose own token verifies now.
  await assertResignable([original], { secrets, verificationPrefix });
  const captureFile = options.capture ?? options.file;
  const text = bodyText(original);
  const edited = await editInEditor(text, {
    env: ctx.env,
    fileName: 'webhook-body.json',
    outputToStderr: Boolean(options.json),
    signal: ctx.signal,
  });
  if (edited.unchanged) {
    if (options.json) writeJson(ctx, { url: url.href, editedFrom: original.id, unchanged: true, sent: false });
    else writeLine(ctx.stderr, `the body of ${printableLine(original.id)} is unchanged: nothing was sent`);
    return;
  }
  const { outcome, record } = await sendEditedDelivery({
    original,
    body: edited.text,
    url,
    secret: secrets[0]?.secret ?? '',
    secrets,
    headerName: headerName === '' ? undefined : headerName,
    verificationPrefix,
    timeoutMs: Math.round(options.timeout * 1000),
    signal: ctx.signal,
  });
  // Recorded whatever the answer: the file says what was sent, and what came back.
  await appendCaptureRecord(captureFile, record);
  const answer = outcome.ok
    ? { status: outcome.response.status, latencyMs: Math.round(outcome.response.latencyMs) }
    : { error: outcome.error.message };
  if (options.json)
    writeJson(ctx, { url: url.href, id: record.id, editedFrom: original.id, capture: captureFile, ...answer });
  else {
    const c = ctx.color;
    const result =
      'error' in answer
        ? c.red(`no answer: ${printable(answer.error)}`)
        : `${(answer.status >= 200 && answer.status < 300 ? c.green : c.red)(String(answer.status))} in ${answer.latencyMs} ms`;
    writeLine(
      ctx.stdout,
      `${c.dim(printableLine(record.id))} ${describeRecord(record)} edited from ${printableLine(original.id)}, re-signed → ${result}`,
    );
    writeLine(ctx.stdout, c.dim(`recorded in ${captureFile} (editedFrom ${printableLine(original.id)})`));
  }
  if (!outcome.ok) throw outcome.error;
  if (outcome.response.status < 200 || outcome.response.status >= 300)
    throw new LedgerhookError(
      'ERR_CHECK_FAILED',
      `the edited delivery was answered ${outcome.response.status}, not 2xx`,
    );
}
