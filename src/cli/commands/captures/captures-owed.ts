import { type CapturedPendingForward, readPendingForwards } from '../../../capture/pending-forwards.js';
import { skippedLines } from '../../../capture/json-lines.js';
import { assertReadableCapture, selectCaptures } from '../../../capture/read-captures.js';
import { sayCaptureWarnings } from '../../capture-warnings.js';
import { usageError } from '../../../errors.js';
import { plural } from '../../../util/plural.js';
import { shellQuote } from '../../../util/shell-quote.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import { printable, printableLine } from '../../render-delivery.js';
import { table } from '../../table.js';
import { captureSelector } from './capture-selector.js';
import type { CapturesListOptions } from './definition.js';

/** One owed forward as `captures list --owed --json` gives it (the URL is what the file says: shown, never used). */
function owedJson(forward: CapturedPendingForward) {
  const { record } = forward;
  return {
    id: forward.deliveryId,
    receivedAt: record.receivedAt,
    type: record.type,
    event: record.event,
    userId: record.userId,
    route: forward.route,
    url: forward.url,
    attempts: forward.attempts,
    dueAt: forward.dueAtMs === 0 ? null : new Date(forward.dueAtMs).toISOString(),
  };
}

/**
 * `captures list --owed`: the forwards listen --retry still owed when it stopped, one row per
 * delivery and route, read as the next listen would resume them (streamed: only owed deliveries are
 * held). The other selectors narrow them; `replay --owed --to URL` sends them.
 */
export async function listOwed(options: CapturesListOptions, ctx: CliContext): Promise<void> {
  if (options.index !== undefined) throw usageError('--index does not go with --owed', 'conflicting_flags');
  const { last, ...selector } = captureSelector(options, undefined);
  await assertReadableCapture(options.file);
  const skipped = skippedLines('', 'the writer');
  const owed = await readPendingForwards(options.file, skipped);
  sayCaptureWarnings(options.file, { warnings: skipped.warnings, skipped: skipped.count }, ctx);
  const kept = new Set(
    selectCaptures(
      owed.map((forward) => forward.record),
      selector,
    ),
  );
  const forwards = owed.filter((forward) => kept.has(forward.record)).slice(last === undefined ? 0 : -last);
  if (options.json) {
    writeJson(ctx, { file: options.file, count: forwards.length, owed: forwards.map(owedJson) });
    return;
  }
  if (forwards.length === 0) {
    writeLine(ctx.stdout, `no forward is still owed in ${options.file}`);
    return;
  }
  const rows = forwards.map((forward) => {
    const shown = owedJson(forward);
    return [
      printableLine(shown.id),
      printable(shown.receivedAt),
      printable(shown.event ?? shown.type ?? ''),
      printableLine(shown.route),
      printableLine(shown.url),
      String(shown.attempts),
      shown.dueAt ?? 'now',
    ];
  });
  writeLine(
    ctx.stdout,
    table(['ID', 'RECEIVED', 'TYPE/EVENT', 'ROUTE', 'URL', 'ATTEMPTS', 'DUE'], rows, ctx.color.bold),
  );
  writeLine(
    ctx.stdout,
    ctx.color.dim(
      `${plural(forwards.length, 'forward')} still owed in ${options.file}; \`ledgerhook replay ${shellQuote(options.file)} --owed --to URL\` sends them (with --route NAME, one route's)`,
    ),
  );
}
