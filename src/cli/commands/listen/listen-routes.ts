import type { ForwardEvent } from '../../../listen/listener.js';
import { parseSelectorList, type RouteSelector } from '../../../listen/route-selector.js';
import { parseRouteFlag, parseRoutesConfig, type Route, uniqueNames } from '../../../listen/routes.js';
import { usageError } from '../../../errors.js';
import type { batchedLineWriter } from '../../batched-lines.js';
import { writeLine, type CliContext } from '../../context.js';
import { formatDuration } from '../../durations.js';
import { jsonLine } from '../../json-output.js';
import { readInputFile } from '../../read-input.js';
import { printable, printableLine } from '../../render-delivery.js';
import { plural } from '../../../util/plural.js';
import { shellQuote } from '../../../util/shell-quote.js';
import type { ListenCommandOptions } from './definition.js';

type LineWriter = ReturnType<typeof batchedLineWriter>;

/** Where listen forwards: --forward-to (in order), then --routes FILE; and the --events filter. */
export interface ListenRouting {
  routes: Route[];
  events: RouteSelector[] | undefined;
}

async function readRoutesFile(path: string): Promise<Route[]> {
  const text = (await readInputFile(path, 'routes file')).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usageError(`${path}: not JSON (${(error as Error).message})`, 'invalid_routes_file', { file: path });
  }
  return parseRoutesConfig(value, path);
}

export async function resolveRouting(
  options: Pick<ListenCommandOptions, 'forwardTo' | 'routes' | 'events' | 'retry' | 'retryResign' | 'capture'>,
): Promise<ListenRouting> {
  const routes = uniqueNames([
    ...(options.forwardTo ?? []).map(parseRouteFlag),
    ...(options.routes === undefined ? [] : await readRoutesFile(options.routes)),
  ]);
  if (options.retry && routes.length === 0)
    throw usageError('--retry goes with --forward-to or --routes (it retries forwards)', 'conflicting_flags');
  if (options.retryResign && !options.retry) throw usageError('--retry-resign goes with --retry', 'conflicting_flags');
  // With --retry the sender gets 2xx before the app has it: only a capture file makes that a record.
  if (options.retry && options.capture === undefined)
    throw usageError(
      '--retry goes with --capture FILE: the sender is answered before your app has the delivery, so it must be recorded (and is resumed from there)',
      'conflicting_flags',
    );
  return { routes, events: options.events === undefined ? undefined : parseSelectorList(options.events) };
}

/** `INVOICE_* → http://localhost:3000/invoices` for the banner. */
export function describeRoutes(routes: readonly Route[]): string {
  return routes.map((route) => `${route.name} → ${route.url.href}`).join(', ');
}

export function routesJson(routing: ListenRouting, retry: readonly number[] | undefined) {
  return {
    routes: routing.routes.map((route) => ({
      name: route.name,
      match: route.selectors.map((selector) => selector.text),
      url: route.url.href,
    })),
    events: routing.events?.map((selector) => selector.text) ?? null,
    retry: retry ?? null,
  };
}

/** One line per attempt made after the answer, and one for what was resumed at start. */
export function forwardPrinter(
  options: Pick<ListenCommandOptions, 'json' | 'capture'>,
  ctx: CliContext,
  out: LineWriter,
) {
  const c = ctx.color;
  return (event: ForwardEvent) => {
    if (event.type === 'forwards-resumed') {
      const { resumed, waiting, dropped, unverified, skipped } = event;
      if (options.json) out.write(jsonLine(event.type, { resumed, waiting, dropped, unverified, skipped }));
      else writeLine(ctx.stderr, resumedLine(event, options.capture ?? ''));
      return;
    }
    const { attempt } = event;
    if (options.json) {
      const { kind: _kind, ...fields } = attempt;
      out.write(jsonLine('attempt', fields));
      return;
    }
    const answer =
      attempt.error !== undefined
        ? `no answer: ${printable(attempt.error)}`
        : `${attempt.status} in ${attempt.latencyMs} ms`;
    const next =
      attempt.outcome === 'retrying'
        ? c.yellow(`; retry at ${attempt.nextAt?.slice(11, 23)}`)
        : attempt.outcome === 'failed'
          ? c.red('; failed')
          : '';
    const paint = attempt.outcome === 'delivered' ? c.green : c.red;
    out.write(
      `${c.dim(attempt.at.slice(11, 23))} ${c.dim(printableLine(attempt.deliveryId))}   ↳ ${printableLine(attempt.route)} #${attempt.attempt}${attempt.resigned ? ' re-signed' : ''} ${paint(answer)}${next}`,
    );
  };
}

/** What was resumed, what waits, and what this run will not send (with the commands that can). */
function resumedLine(event: Extract<ForwardEvent, { type: 'forwards-resumed' }>, capture: string): string {
  const { resumed, waiting, dropped, unverified, skipped } = event;
  const owed = resumed + waiting + dropped + unverified > 0;
  const parts = owed ? [`resuming ${plural(resumed, 'forward')} still due in the capture file`] : [];
  if (waiting > 0) parts.push(`${waiting} more wait for room`);
  if (dropped > 0)
    parts.push(`${plural(dropped, 'forward')} to routes this run does not have (by name and URL) not sent`);
  if (unverified > 0)
    parts.push(`${plural(unverified, 'forward')} whose original token does not verify with the secret now not sent`);
  if (skipped > 0)
    parts.push(
      `${plural(skipped, 'line')} of the capture file${owed ? '' : ` ${printableLine(capture)}`} not read (not JSON, cut, or too long)`,
    );
  const file = shellQuote(capture);
  const hint =
    dropped > 0
      ? `; \`ledgerhook captures list ${file} --owed\` lists them, \`ledgerhook replay ${file} --owed --to URL\` sends them`
      : '';
  return `${parts.join('; ')}${hint}`;
}

/**
 * Resumed forwards start while listen is still starting: their lines wait for the banner (the first
 * JSON line stays `listening`).
 */
export function heldUntilReady<T>(print: (event: T) => void): { print: (event: T) => void; ready(): void } {
  let held: T[] | undefined = [];
  return {
    print: (event) => (held ? held.push(event) : print(event)),
    ready() {
      for (const event of held ?? []) print(event);
      held = undefined;
    },
  };
}

/** Said on exit: forwards still due, and how to resume them (or that nothing can, without a capture file). */
export function printPending(
  options: Pick<ListenCommandOptions, 'json' | 'capture' | 'retry'>,
  ctx: CliContext,
  pending: number,
): void {
  if (pending === 0 || options.json) return;
  const schedule = (options.retry ?? []).map(formatDuration).join(',');
  writeLine(
    ctx.stderr,
    options.capture
      ? `${ctx.color.yellow(`${plural(pending, 'forward')} still due`)} (pending retry, kept in ${options.capture}): \`ledgerhook listen --capture ${shellQuote(options.capture)} --retry ${schedule} ...\` with the same routes resumes them`
      : `${ctx.color.yellow(`${plural(pending, 'forward')} pending retry dropped`)}: without --capture nothing keeps them`,
  );
}
