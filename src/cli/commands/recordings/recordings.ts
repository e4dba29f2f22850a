import { readRecording, type RecordedDelivery } from '../../../record/read-recording.js';
import type { RecordedExchange } from '../../../record/recording-format.js';
import { plural } from '../../../util/plural.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import { describeRecord } from '../../delivery-line.js';
import { exchangeJson, exchangeText } from '../../recording-lines.js';
import { printableLine } from '../../render-delivery.js';
import type { RecordingsShowOptions } from './definition.js';

type Event = { seq: number; exchange: RecordedExchange } | { seq: number; delivery: RecordedDelivery };

/** "verified at receipt", "refused at receipt: bad_signature" or "not verified": what the recording keeps of the token. */
function receipt(delivery: RecordedDelivery): string {
  const { verdict } = delivery.record;
  if (verdict.valid === true) return 'verified at receipt';
  return verdict.valid === false ? `refused at receipt: ${verdict.code ?? 'unknown'}` : 'not verified';
}

function deliveryText(delivery: RecordedDelivery, ctx: CliContext): string {
  const c = ctx.color;
  const judged = delivery.record.verdict.valid === true ? c.green(receipt(delivery)) : c.yellow(receipt(delivery));
  return `${c.dim(printableLine(delivery.at.slice(11, 23)))} ${c.dim(`#${delivery.seq}`)} webhook ${describeRecord(delivery.record)}  ${judged}`;
}

export async function run(options: RecordingsShowOptions, ctx: CliContext): Promise<void> {
  const recording = await readRecording(options.dir);
  const { header, exchanges, deliveries, warnings } = recording;
  const events: Event[] = [
    ...exchanges.map((exchange) => ({ seq: exchange.seq, exchange })),
    ...deliveries.map((delivery) => ({ seq: delivery.seq, delivery })),
  ].sort((a, b) => a.seq - b.seq);
  const shown = options.last === undefined ? events : events.slice(-options.last);
  if (options.json) {
    writeJson(ctx, {
      dir: options.dir,
      header,
      exchanges: exchanges.length,
      deliveries: deliveries.length,
      events: shown.map((event) =>
        'exchange' in event
          ? { kind: 'exchange', ...exchangeJson(event.exchange) }
          : {
              kind: 'delivery',
              seq: event.seq,
              at: event.delivery.at,
              id: event.delivery.record.id,
              type: event.delivery.record.type,
              event: event.delivery.record.event,
              entities: event.delivery.record.entities,
              userId: event.delivery.record.userId,
              receipt: receipt(event.delivery),
            },
      ),
      warnings,
    });
    return;
  }
  for (const warning of warnings.slice(0, 3))
    writeLine(ctx.stderr, `${ctx.color.yellow('warning:')} ${printableLine(warning)}`);
  const fields = header.redaction.fields.length > 0 ? ` and ${header.redaction.fields.join(',')}` : '';
  writeLine(
    ctx.stdout,
    ctx.color.dim(
      printableLine(
        `recording of ${header.baseUrl}, started ${header.startedAt}; redacted: the defaults${fields} (key ${header.redaction.keyId})`,
      ),
    ),
  );
  for (const event of shown)
    writeLine(ctx.stdout, 'exchange' in event ? exchangeText(event.exchange, ctx) : deliveryText(event.delivery, ctx));
  writeLine(
    ctx.stdout,
    ctx.color.dim(
      `${plural(exchanges.length, 'exchange')} and ${plural(deliveries.length, 'delivery', 'deliveries')} in ${printableLine(options.dir)}`,
    ),
  );
}
