import { captureBody } from '../../capture/capture-record.js';
import { selectCaptures } from '../../capture/read-captures.js';
import { captureSelector } from '../capture-selector.js';
import { readCaptureFile } from '../capture-warnings.js';
import { usageError } from '../../errors.js';
import { deliveryDetail } from '../../inspector/delivery-detail.js';
import { fromCaptureRecord, type InspectorDelivery } from '../../inspector/inspector-delivery.js';
import { plural } from '../../util/plural.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { CapturesCommandOptions, CapturesListOptions, CapturesShowOptions } from '../definitions/captures.js';
import { printable, renderDetail } from '../render-delivery.js';
import { resolveWebhookSecrets } from '../resolve-settings.js';
import { table } from '../table.js';

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
  const { records, warnings } = await readCaptureFile(options.file, ctx);
  const all = records.map((record, index) => fromCaptureRecord(record, index));
  const chosen = new Set(selectCaptures(records, captureSelector(options, records)));
  const shown = all.filter((delivery) => chosen.has(delivery.record));
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
      `no delivery in ${options.file} matches (it holds ${plural(all.length, 'delivery', 'deliveries')})`,
    );
    return;
  }
  const rows = shown.map((d) => [
    String(d.index),
    printable(d.id),
    printable(d.receivedAt),
    verdictText(d, ctx),
    printable(what(d)),
    printable(d.userId ?? ''),
    `${d.bodyBytes} B${d.bodyTruncated ? ' (cut)' : ''}`,
  ]);
  writeLine(ctx.stdout, table(['#', 'ID', 'RECEIVED', 'VERDICT', 'TYPE/EVENT', 'USER', 'SIZE'], rows, ctx.color.bold));
  writeLine(
    ctx.stdout,
    ctx.color.dim(`${plural(shown.length, 'delivery', 'deliveries')} of ${all.length} in ${options.file}`),
  );
}

/** FILE, FILE#id or FILE:index (the same form `verify --delivery` takes). */
export function parseDeliverySpec(spec: string): { file: string; id?: string | undefined; index?: number | undefined } {
  const match = /^(.*?)(?:#([\w-]+)|:(\d+))?$/.exec(spec);
  const file = match?.[1] ?? spec;
  if (file === '') throw usageError(`"${spec}" names no capture file: give FILE, FILE#id or FILE:index`);
  const id = match?.[2];
  const index = match?.[3];
  if (id !== undefined) return { file, id };
  if (index !== undefined) return { file, index: Number(index) };
  return { file };
}

async function show(options: CapturesShowOptions, ctx: CliContext): Promise<void> {
  const { file, id, index } = parseDeliverySpec(options.spec);
  const { records } = await readCaptureFile(file, ctx);
  if (records.length === 0) throw usageError(`${file} holds no captured delivery`);
  const [record] =
    id !== undefined || index !== undefined
      ? selectCaptures(records, captureSelector({ id, index }, records))
      : records.slice(-1);
  if (record === undefined) throw usageError(`no captured delivery matches ${options.spec}`);
  const delivery = fromCaptureRecord(record, records.indexOf(record));
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
  const detail = await deliveryDetail(delivery, { secrets, toleranceSeconds: options.tolerance });
  if (options.json) writeJson(ctx, { file, ...detail });
  else renderDetail(detail, ctx);
}
