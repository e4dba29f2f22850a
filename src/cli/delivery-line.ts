import type { CaptureRecord } from '../capture/capture-record.js';
import type { ForwardResult, ReceivedDelivery } from '../delivery/received-delivery.js';
import type { CliContext } from './context.js';
import { bodyMismatchCause } from '@ledgerhook/webhooks/advanced';
import { printable, printableLine } from './render-delivery.js';

/** What a captured delivery is about, in a few words: "ENTITY_UPDATE expense,invoice user_1". */
export function describeRecord(record: CaptureRecord): string {
  return printable(describeUnescaped(record));
}

/** Captured values are attacker input: escaped by printable() above before they reach a terminal. */
function describeUnescaped(record: CaptureRecord): string {
  if (record.type === 'ENTITY_UPDATE')
    return printable(`ENTITY_UPDATE ${record.entities?.join(',') ?? ''} ${record.userId ?? ''}`.trim());
  if (record.type === 'LIFECYCLE_EVENT')
    return printable(`LIFECYCLE_EVENT ${record.event ?? ''} ${record.userId ?? ''}`.trim());
  return `${record.bodyBytes} bytes, not a webhook body`;
}

/** The same for a delivery as the listener received it. */
export function describeDelivery(delivery: ReceivedDelivery): string {
  const { parsed } = delivery;
  if (!parsed.ok)
    return parsed.reason.startsWith('not parsed')
      ? `${delivery.body.length} bytes (${parsed.reason})`
      : `${delivery.body.length} bytes, not a webhook body: ${printable(parsed.reason)}`;
  const body = parsed.body;
  if (body.type === 'ENTITY_UPDATE') return printable(`ENTITY_UPDATE ${body.entities.join(',')} ${body.userId}`);
  return printable(`LIFECYCLE_EVENT ${body.event} ${body.userId}`);
}

/**
 * Why an authentic-looking delivery's body did not match its hash (re-serialised, hex digest, a
 * newline...). Worked out here, as the line is printed after the sender was answered, and only when
 * the signature verified: a forgery never costs more than its one hash.
 */
function mismatchCause(delivery: ReceivedDelivery): string | undefined {
  const { verdict } = delivery;
  if (verdict.code !== 'body_mismatch' || !verdict.signatureVerified || verdict.claimedBodySha256 === undefined)
    return undefined;
  return bodyMismatchCause(delivery.body, verdict.claimedBodySha256);
}

const quote = JSON.stringify;

/**
 * The `--json` line of a delivery (a JSON Lines event: `kind` and `time` first, as `jsonLine` puts
 * them): what it was and how it was judged, without body or headers. listen prints one per delivery,
 * so the text is written in one pass from what verification and the body's parse already hold,
 * every value that came from outside quoted by JSON.stringify, instead of an object built to be
 * serialised.
 */
export function deliveryJsonLine(delivery: ReceivedDelivery, time: string): string {
  const { parsed, verdict } = delivery;
  const cause = mismatchCause(delivery);
  let line = `{"kind":"delivery","time":${quote(time)},"id":${quote(delivery.id)},"receivedAt":${quote(delivery.receivedAt)},"method":${quote(delivery.method)},"path":${quote(delivery.path)},"headerName":${quote(delivery.headerName)},"bodyBytes":${delivery.body.length},"verdict":{"valid":${verdict.valid},"status":${delivery.status}`;
  if (verdict.code !== undefined) line += `,"code":${quote(verdict.code)}`;
  if (verdict.message !== undefined) line += `,"message":${quote(verdict.message)}`;
  line += `,"warnings":${quote(verdict.warnings)}${cause ? `,"cause":${quote(cause)}` : ''}}`;
  // An authentic body that is not the spec's shape says why, with a stable code (invalid_user, invalid_body).
  if (!parsed.ok && !parsed.reason.startsWith('not parsed'))
    line += `,"invalidBody":{"code":"${parsed.code === 'invalid_user' ? 'invalid_user' : 'invalid_body'}","reason":${quote(parsed.reason)}}`;
  if (parsed.ok) {
    const { body } = parsed;
    line += `,"type":${quote(body.type)},"userId":${quote(body.userId)}`;
    line += body.type === 'LIFECYCLE_EVENT' ? `,"event":${quote(body.event)}` : `,"entities":${quote(body.entities)}`;
  }
  if (delivery.forward) line += `,"forward":${quote(delivery.forward)}`;
  if (delivery.forwards) line += `,"forwards":${quote(delivery.forwards)}`;
  if (delivery.forwarding) line += `,"forwarding":${quote(delivery.forwarding)}`;
  return `${line}}`;
}

/** One line per delivery: time, what, verdict (and reason), forward result, then any warning. */
export function deliveryLine(delivery: ReceivedDelivery, ctx: CliContext): string {
  const c = ctx.color;
  const { verdict, forward, forwards, forwarding } = delivery;
  const time = delivery.receivedAt.slice(11, 23);
  const cause = mismatchCause(delivery);
  const judged =
    verdict.valid === true
      ? c.green('✔ valid')
      : verdict.valid === false
        ? c.red(`✖ ${verdict.code}`) + c.dim(` ${cause ? printable(cause) : (verdict.message ?? '')}`)
        : c.yellow('- not verified');
  const answer = (result: ForwardResult) =>
    result.error !== undefined
      ? c.red(`failed: ${printable(result.error)}`)
      : `${result.status} in ${result.latencyMs} ms`;
  // Routes are named (each its answer); the one catch-all of old prints as before.
  const forwarded = forwarding
    ? c.dim(` → forwarding to ${forwarding.map((due) => printableLine(due.route)).join(', ')}`)
    : forwards && (forwards.length > 1 || forwards[0]?.route !== 'default')
      ? ` → ${forwards.map((result) => `${printableLine(result.route ?? '')} ${answer(result)}`).join(', ')}`
      : forward
        ? forward.error !== undefined
          ? c.red(` → forward failed: ${forward.error}`)
          : ` → ${forward.status} in ${forward.latencyMs} ms`
        : '';
  const warnings = verdict.warnings.map((warning) => `\n  ${c.yellow('! warning:')} ${printable(warning)}`).join('');
  return `${c.dim(time)} ${c.dim(delivery.id)} ${describeDelivery(delivery)}  ${judged}${forwarded}${warnings}`;
}
