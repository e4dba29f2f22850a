import { captureBody } from '../../../capture/capture-record.js';
import { captureSelector } from './capture-selector.js';
import { readCaptureFile } from '../../capture-warnings.js';
import { usageError } from '../../../errors.js';
import { deliveryDetail } from '../../../inspector/delivery-detail.js';
import { fromCaptureRecord, type InspectorDelivery } from '../../../inspector/inspector-delivery.js';
import { plural } from '../../../util/plural.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { CapturesCommandOptions, CapturesListOptions, CapturesShowOptions } from './definition.js';
import { printable, renderDetail, printableLine } from '../../render-delivery.js';
import { resolveWebhookSecrets } from '../../resolve-settings.js';
import { resolveTolerance } from '../../resolve-service-settings.js';
import { table } from '../../table.js';

export async function run(options: CapturesCommandOptions, ctx: CliContext): Promise<void> {
  if (options.action === 'list') return list(options, ctx);
  return show(options, ctx);
}

function what(delivery: InspectorDelivery): string {
  if (delivery.type === 'ENTITY_UPDATE') return `ENTITY_UPDATE ${delivery.entities?.join(',') ?? ''}`.trim();
  if (delivery.type === 'LIFECYCLE_EVENT') return `LIFECYCLE_EVENT ${delivery.event ?? ''}`.trim();
  return '(not a webhook body)';
}

function verdictText(delivery: InspectorDelivery, ctx: CliContext): string {
  const c = ctx.color;
  if (delivery.verdict === 'valid') return c.green(`valid ${delivery.status}`);
  if (delivery.verdict === 'refused') return c.red(printable(`${delivery.code ?? 'refused'} ${delivery.status}`));
  return c.yellow(`not verified ${delivery.status}`);
}

async function list(options: CapturesListOptions, ctx: CliContext): Promise<void> {
  if (options.owed) return (await import('./captures-owed.js')).listOwed(options, ctx);
  // Streamed with the selector: `--last 2` of a capture of any size keeps two records in memory.
  const selector = captureSelector(options, undefined);
  const { records, indexes, total, warnings } = await readCaptureFile(options.file, ctx, selector);
  // An --event outside the catalogue is fine when the capture holds it (a custom event); when nothing
  // matched, it is checked as before, so that a typo gets its suggestion.
  if (records.length === 0 && options.event !== undefined) captureSelector(options, []);
  const shown = records.map((record, at) => fromCaptureRecord(record, indexes[at] ?? at));
  if (options.json) {
    writeJson(ctx, {
      file: options.file,
      count: shown.length,
      deliveries: shown.map(({ record: _record, ...summary }) => summary),
      warnings,
    });
    return;
  }
  if (shown.length === 0) {
    writeLine(
      ctx.stdout,
      `no delivery in ${options.file} matches (it holds ${plural(total, 'delivery', 'deliveries')})`,
    );
    return;
  }
  const rows = shown.map((d) => [
    String(d.index),
    printableLine(d.id),
    printable(d.receivedAt),
    verdictText(d, ctx),
    printable(d.editedFrom ? `${what(d)} (edited from ${d.editedFrom})` : what(d)),
    printable(d.userId ?? ''),
    `${d.bodyBytes} B${d.bodyTruncated ? ' (cut)' : ''}`,
  ]);
  writeLine(ctx.stdout, table(['#', 'ID', 'RECEIVED', 'VERDICT', 'TYPE/EVENT', 'USER', 'SIZE'], rows, ctx.color.bold));
  writeLine(
    ctx.stdout,
    ctx.color.dim(`${plural(shown.length, 'delivery', 'deliveries')} of ${total} in ${options.file}`),
  );
}

/** FILE, FILE#id or FILE:index (the same form `verify --delivery` takes). */
export function parseDeliverySpec(spec: string): { file: string; id?: string | undefined; index?: number | undefined } {
  const match = /^(.*?)(?:#([\w-]+)|:(\d+))?$/.exec(spec);
  const file = match?.[1] ?? spec;
  if (file === '')
    throw usageError(`"${spec}" names no capture file: give FILE, FILE#id or FILE:index`, 'capture_selection');
  const id = match?.[2];
  const index = match?.[3];
  if (id !== undefined) return { file, id };
  if (index !== undefined) return { file, index: Number(index) };
  return { file };
}

async function show(options: CapturesShowOptions, ctx: CliContext): Promise<void> {
  const { file, id, index } = parseDeliverySpec(options.spec);
  const selector = id !== undefined ? { id } : index !== undefined ? { index } : { last: 1 };
  const { records, indexes, total } = await readCaptureFile(file, ctx, selector);
  if (total === 0) throw usageError(`${file} holds no captured delivery`, 'capture_selection');
  if (index !== undefined && index >= total)
    throw usageError(
      `index ${index} is out of range: the capture holds ${total} deliveries (0 to ${total - 1})`,
      'capture_selection',
    );
  const [record] = records;
  if (record === undefined) throw usageError(`no captured delivery matches ${options.spec}`, 'capture_selection');
  const delivery = fromCaptureRecord(record, indexes[0] ?? 0);
  if (options.raw) {
    if (delivery.bodyTruncated)
      writeLine(
        ctx.stderr,
        `${ctx.color.yellow('warning:')} only the first ${captureBody(record).length} of ${delivery.bodyBytes} bytes were captured`,
      );
    ctx.stdout.write(captureBody(record));
    return;
  }
  const secrets = await resolveWebhookSecrets(options, ctx);
  const detail = await deliveryDetail(delivery, { secrets, toleranceSeconds: await resolveTolerance(options, ctx) });
  if (options.json) writeJson(ctx, { file, ...detail });
  else renderDetail(detail, ctx);
}
