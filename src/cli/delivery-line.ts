import type { CaptureRecord } from '../capture/capture-record.js';
import type { CliContext } from './context.js';

/** What a delivery is about, in a few words: "ENTITY_UPDATE expense,invoice user_1". */
export function describeRecord(record: CaptureRecord): string {
  if (record.type === 'ENTITY_UPDATE') return `ENTITY_UPDATE ${record.entities?.join(',') ?? ''} ${record.userId ?? ''}`.trim();
  if (record.type === 'LIFECYCLE_EVENT') return `LIFECYCLE_EVENT ${record.event ?? ''} ${record.userId ?? ''}`.trim();
  return `${record.bodyBytes} bytes, not a webhook body`;
}

/** One line per delivery: time, what, verdict (and reason), forward result. */
export function deliveryLine(record: CaptureRecord, ctx: CliContext): string {
  const c = ctx.color;
  const time = record.receivedAt.slice(11, 23);
  const verdict = record.verdict.valid === true
    ? c.green('✔ valid')
    : record.verdict.valid === false
      ? c.red(`✖ ${record.verdict.code}`) + c.dim(` ${record.verdict.message ?? ''}`)
      : c.yellow('- not verified');
  const forward = record.forward
    ? record.forward.error ? c.red(` → forward failed: ${record.forward.error}`) : ` → ${record.forward.status} in ${record.forward.latencyMs} ms`
    : '';
  return `${c.dim(time)} ${c.dim(record.id)} ${describeRecord(record)}  ${verdict}${forward}`;
}
