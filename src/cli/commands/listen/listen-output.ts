import type { ListenerEvent, RunningListener } from '../../../listen/listener.js';
import type { QueueRecorderEvent } from '../../../queue/queue-recorder.js';
import { plural } from '../../../util/plural.js';
import type { WebhookSyncEvent } from '../../../webhook-sync/webhook-sync.js';
import type { batchedLineWriter } from '../../batched-lines.js';
import { writeLine, type CliContext } from '../../context.js';
import { jsonLine } from '../../json-output.js';
import { isoTime } from '../../../util/iso-time.js';
import type { ListenCommandOptions } from './definition.js';
import { deliveryJsonLine, deliveryLine } from '../../delivery-line.js';
import { queueEventLine } from './listen-queue.js';
import { syncEventLine } from './listen-sync.js';
import { prettyBody, printable } from '../../render-delivery.js';
import { formatDuration } from '../../durations.js';
import { describeRoutes, type ListenRouting, routesJson } from './listen-routes.js';

// What `listen` prints: a line (with --json, an object) per event, the banner and the summary.

type LineWriter = ReturnType<typeof batchedLineWriter>;

/** Said once, when refused deliveries start being counted instead of written. */
function captureLimitLine(event: Extract<ListenerEvent, { type: 'capture-limit' }>, capture: string): string {
  const cause =
    event.limit === 'rate'
      ? `they came faster than ${event.perSecond} a second`
      : `${event.maxBytes} bytes of them were written`;
  return `refused deliveries are now counted, not written to ${capture}: ${cause} (--capture-refused-rate ${event.perSecond}, --capture-refused-max ${event.maxBytes}); valid ones are all written`;
}

export function listenerPrinter(
  options: Pick<ListenCommandOptions, 'json' | 'printBody' | 'capture'>,
  ctx: CliContext,
  out: LineWriter,
  /** --redact: the body as it may be printed. */
  redactBody?: ((body: Buffer) => string) | undefined,
) {
  return (event: ListenerEvent) => {
    if (options.json) {
      if (event.type === 'delivery') out.write(deliveryJsonLine(event.delivery, isoTime(Date.now())));
      else {
        const { type, ...fields } = event;
        out.write(jsonLine(type, fields));
      }
      return;
    }
    if (event.type === 'delivery') {
      out.write(deliveryLine(event.delivery, ctx));
      if (options.printBody) {
        const body = redactBody ? redactBody(event.delivery.body) : event.delivery.body.toString('utf8');
        out.write(printable(prettyBody(body)));
      }
    } else if (event.type === 'refused')
      out.write(ctx.color.dim(`refused ${event.method} ${event.path}: ${event.status || 'aborted'} ${event.reason}`));
    else if (event.type === 'capture-limit')
      writeLine(ctx.stderr, ctx.color.yellow(captureLimitLine(event, options.capture ?? '')));
    else writeLine(ctx.stderr, `${ctx.color.red('capture error:')} ${event.message}`);
  };
}

export function syncPrinter(options: Pick<ListenCommandOptions, 'json'>, ctx: CliContext, out: LineWriter) {
  return (event: WebhookSyncEvent) => {
    if (!options.json) {
      const line = syncEventLine(event, ctx);
      if (line) out.write(line);
    } else if (event.type === 'sync-done')
      out.write(jsonLine(event.type, { userId: event.userId, entity: event.entity, run: event.run, ...event.summary }));
    else {
      const { type, ...fields } = event;
      out.write(jsonLine(type, fields));
    }
  };
}

export function queuePrinter(options: Pick<ListenCommandOptions, 'json'>, ctx: CliContext, out: LineWriter) {
  return (event: QueueRecorderEvent) => {
    const { outcome, ...fields } = event;
    const line = options.json ? jsonLine(outcome, fields) : queueEventLine(event, ctx);
    if (line) out.write(line);
  };
}

export interface Banner {
  url: string;
  inspectorUrl: string | undefined;
  verifying: boolean;
  headerName: string;
  routing: ListenRouting;
  syncing: boolean;
  /** The Redis the syncs are queued in (password masked), when listen --sync --queue. */
  queue: string | undefined;
  /** The generated local development secret, when that is what verifies: printed for the app to use. */
  localSecret: string | undefined;
}

export function printBanner(
  options: Pick<ListenCommandOptions, 'json' | 'capture' | 'out' | 'retry'>,
  ctx: CliContext,
  banner: Banner,
): void {
  const { url, inspectorUrl, verifying, headerName, routing, syncing, queue, localSecret } = banner;
  const [only] = routing.routes;
  // The single catch-all keeps its field as before routes; the list says everything.
  const forwardTo = routing.routes.length === 1 && only?.selectors.length === 0 ? only.url.href : undefined;
  if (options.json) {
    writeLine(
      ctx.stdout,
      jsonLine('listening', {
        url,
        inspectorUrl: inspectorUrl ?? null,
        verifying,
        headerName,
        capture: options.capture ?? null,
        forwardTo: forwardTo ?? null,
        ...routesJson(routing, options.retry),
        sync: syncing,
        queue: queue ?? null,
        ...(localSecret ? { localWebhookSecret: localSecret } : {}),
      }),
    );
    return;
  }
  const parts = [`${ctx.color.bold('listening on')} ${url}`];
  if (inspectorUrl) parts.push(`inspector at ${inspectorUrl}`);
  if (forwardTo) parts.push(`forwarding to ${forwardTo}`);
  else if (routing.routes.length > 0) parts.push(`forwarding ${describeRoutes(routing.routes)}`);
  if (routing.events) parts.push(`only ${routing.events.map((selector) => selector.text).join(',')}`);
  if (options.retry) parts.push(`retrying after ${options.retry.map(formatDuration).join(',')}`);
  if (options.capture) parts.push(`capturing to ${options.capture}`);
  if (queue) parts.push(`queueing syncs in ${queue}`);
  else if (syncing) parts.push(`syncing into ${options.out}`);
  // Status, not results: stderr (stdout holds the deliveries, so `listen | grep` sees only them).
  writeLine(ctx.stderr, parts.join(', '));
  if (localSecret)
    writeLine(
      ctx.stderr,
      `your local development webhook secret is ${ctx.color.bold(localSecret)} (give it to your app; only the local environment uses it)`,
    );
  if (!verifying)
    writeLine(
      ctx.stderr,
      ctx.color.yellow(
        'no webhook secret configured: deliveries are NOT verified (pass --secret-file, set LEDGERHOOK_WEBHOOK_SECRET, or `ledgerhook config set webhookSecret -`)',
      ),
    );
  writeLine(ctx.stderr, ctx.color.dim('Ctrl-C to stop'));
}

export function printListenSummary(
  options: Pick<ListenCommandOptions, 'json' | 'capture'>,
  ctx: CliContext,
  listener: RunningListener,
): void {
  const s = listener.stats;
  if (options.json)
    writeLine(
      ctx.stdout,
      jsonLine('summary', { ...s, captured: listener.captured, forwardsPending: listener.forwardsPending }),
    );
  else
    writeLine(
      ctx.stdout,
      `\nreceived ${plural(s.deliveries, 'delivery', 'deliveries')}: ${s.valid} valid, ${s.invalid} invalid, ${s.unverified} not verified; ${plural(s.refused, 'request')} refused${s.busy ? ` (${s.busy} busy)` : ''}${options.capture ? `; ${listener.captured} captured to ${options.capture}` : ''}${s.refusedNotCaptured > 0 ? ` (${s.refusedNotCaptured} invalid counted, not written)` : ''}`,
    );
}
