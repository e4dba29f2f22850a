import type { DeliveryDetail } from '../inspector/delivery-detail.js';
import { writeLine, type CliContext } from './context.js';

/**
 * Captured values are attacker input: control characters (an ANSI escape in a body could rewrite
 * the terminal) are shown as \u escapes. Newlines and tabs stay, so that bodies read naturally.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** printable() for a value on one status line (an id, a time read from a capture): newlines escaped too. */
export function printableLine(text: string): string {
  return printable(text).replace(/\n/g, '\\u000a').replace(/\t/g, '\\u0009');
}

/** A value from the network in a status line: JSON-quoted (no newline, visible edges), C1 controls escaped too. */
export function quoted(value: string): string {
  return printable(JSON.stringify(value));
}

/** Pretty JSON body, or the text itself: what `listen --print-body` prints under a delivery line. */
export function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function formatAge(seconds: number): string {
  if (Math.abs(seconds) < 120) return `${seconds}s`;
  if (Math.abs(seconds) < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

const MARKS = { pass: '✔', fail: '✖', warn: '!', skip: '-' } as const;

function renderVerdict(detail: DeliveryDetail, ctx: CliContext): void {
  const c = ctx.color;
  const head =
    detail.verdict === 'valid'
      ? c.green('valid')
      : detail.verdict === 'refused'
        ? c.red(printable(`refused: ${detail.code ?? ''} ${detail.message ?? ''}`.trim()))
        : c.yellow('not verified (no secret was configured)');
  writeLine(ctx.stdout, `${c.bold('verdict')}  ${head}; answered ${detail.status}`);
  if (detail.checks === null) {
    writeLine(ctx.stdout, c.dim('  (no secret here: the checklist is the recorded verdict only)'));
  } else {
    for (const check of detail.checks) {
      const paint = check.status === 'pass' ? c.green : check.status === 'fail' ? c.red : c.yellow;
      writeLine(ctx.stdout, `  ${paint(MARKS[check.status])} ${check.name.padEnd(10)} ${printable(check.detail)}`);
    }
  }
  for (const hint of detail.hints) writeLine(ctx.stdout, `  ${c.dim('hint:')} ${printable(hint)}`);
  for (const warning of detail.warnings) writeLine(ctx.stdout, `  ${c.yellow('warning:')} ${printable(warning)}`);
}

/** Each route's standing, then every attempt made after the answer (listen --retry). */
function renderRoutes(detail: DeliveryDetail, ctx: CliContext): void {
  const c = ctx.color;
  if (detail.routes.length > 1 || detail.attempts.length > 0 || (detail.routes[0] && !detail.forward))
    for (const route of detail.routes) {
      const last =
        route.outcome === 'due'
          ? 'due, not attempted yet'
          : `${route.outcome} after ${route.attempts} attempt${route.attempts === 1 ? '' : 's'}${route.outcome === 'retrying' ? `, next at ${route.nextAt}` : ''}`;
      writeLine(ctx.stdout, `${c.bold('route')}    ${printable(`${route.route} ${route.url}: ${last}`)}`);
    }
  for (const attempt of detail.attempts) {
    const answer = attempt.error ?? `${attempt.status} in ${attempt.latencyMs} ms`;
    writeLine(
      ctx.stdout,
      `  ${c.dim(printable(attempt.at))} ${printable(`${attempt.route} #${attempt.attempt}${attempt.resigned ? ' re-signed' : ''} → ${answer} (${attempt.outcome})`)}`,
    );
  }
}

function renderToken(detail: DeliveryDetail, ctx: CliContext): void {
  const c = ctx.color;
  const token = detail.token;
  if (token === null) {
    writeLine(ctx.stdout, `${c.bold('token')}    none (no ${printable(detail.headerName)} header)`);
    return;
  }
  if (token.problem !== undefined) {
    writeLine(ctx.stdout, `${c.bold('token')}    does not decode: ${printable(token.problem)}`);
    return;
  }
  // JSON.stringify leaves C1 controls (U+0080-U+009F) as they are: printable() escapes those too.
  writeLine(ctx.stdout, `${c.bold('token')}    header ${printable(JSON.stringify(token.header))}`);
  writeLine(ctx.stdout, `         claims ${printable(JSON.stringify(token.claims))}`);
  const age = token.ageAtReceiptSeconds;
  if (token.iatDate !== undefined)
    writeLine(
      ctx.stdout,
      `         iat ${token.iatDate}${age === undefined ? '' : ` (${formatAge(age)} old when received)`}`,
    );
}

/** `captures show`: headers, decoded token, verdict with reasons, pretty body. */
export function renderDetail(detail: DeliveryDetail, ctx: CliContext): void {
  const c = ctx.color;
  writeLine(
    ctx.stdout,
    `${c.bold(printableLine(detail.id))}  #${detail.index}  received ${printableLine(detail.receivedAt)}`,
  );
  // editedFrom passed isReplayMarker (an id of word characters): safe on a terminal as it is.
  if (detail.editedFrom)
    writeLine(ctx.stdout, `${c.bold('edited')}   from ${detail.editedFrom}, re-signed and sent by ledgerhook`);
  writeLine(ctx.stdout, `${c.bold('request')}  ${printable(detail.method)} ${printable(detail.path)}`);
  for (const [name, value] of Object.entries(detail.headers))
    for (const one of Array.isArray(value) ? value : [value])
      writeLine(ctx.stdout, `  ${c.dim(`${printable(name)}:`)} ${printable(one)}`);
  renderToken(detail, ctx);
  renderVerdict(detail, ctx);
  if (detail.forward)
    writeLine(
      ctx.stdout,
      `${c.bold('forward')}  ${printable(`${detail.forward.url} → ${detail.forward.error ?? `${detail.forward.status} in ${detail.forward.latencyMs} ms`}`)}`,
    );
  renderRoutes(detail, ctx);
  const body = detail.body;
  const size = body.truncated ? `${body.storedBytes} of ${body.bytes} bytes captured (cut)` : `${body.bytes} bytes`;
  writeLine(ctx.stdout, `${c.bold('body')}     ${size}, SHA-256 ${body.sha256Hex}`);
  if (!body.utf8) writeLine(ctx.stdout, c.yellow('not valid UTF-8: shown decoded below; --raw writes the exact bytes'));
  writeLine(ctx.stdout, printable(body.pretty ?? body.text));
}
