import { usageError } from '../../errors.js';
import { resolveTarget } from '../../delivery/target.js';
import { startListener, type ListenerEvent } from '../../listen/listener.js';
import type { LabelledSecret } from '../../webhook/secrets.js';
import type { WebhookSyncEvent } from '../../webhook-sync/webhook-sync.js';
import { batchedLineWriter } from '../batched-lines.js';
import { writeLine, type CliContext } from '../context.js';
import type { ListenCommandOptions } from '../definitions/listen.js';
import { deliveryJson, deliveryLine } from '../delivery-line.js';
import { resolveHeaderName, resolveWebhookSecrets } from '../resolve-settings.js';
import { createListenSync, syncEventLine } from '../listen-sync.js';
import { createListenQueue, queueEventLine, queueSubscriber } from '../listen-queue.js';
import { redactRedisUrl } from '../../queue/queue-target.js';
import { prettyBody, printable } from '../render-delivery.js';
import { plural } from '../../util/plural.js';

type Inspector = ReturnType<typeof import('../listen-inspector.js').listenInspector>;

type LineWriter = ReturnType<typeof batchedLineWriter>;

/** Flags that only make sense together are refused before anything is opened or bound. */
function checkFlags(options: ListenCommandOptions, secrets: readonly LabelledSecret[]): void {
  if (!options.sync && (options.token || options.tokenFile || options.tokens || options.baseUrl || options.queue))
    throw usageError('--token, --token-file, --tokens, --base-url and --queue go with --sync');
  if (!options.capture && (options.captureSync || options.captureRefusedBodies))
    throw usageError('--capture-sync and --capture-refused-bodies go with --capture FILE');
  // Syncing on deliveries nobody verified would let anyone trigger syncs with the real access token.
  if (options.sync && secrets.length === 0 && !options.insecureNoVerify)
    throw usageError(
      'listen --sync needs a webhook secret to verify deliveries before syncing: pass --secret-file FILE (or set LEDGERHOOK_WEBHOOK_SECRET), or --insecure-no-verify to sync unverified deliveries',
    );
}

function listenerPrinter(options: ListenCommandOptions, ctx: CliContext, out: LineWriter) {
  return (event: ListenerEvent) => {
    if (options.json) {
      if (event.type === 'delivery') out.write(JSON.stringify(deliveryJson(event.delivery)));
      else out.write(JSON.stringify({ ...event, type: undefined, kind: event.type }));
      return;
    }
    if (event.type === 'delivery') {
      out.write(deliveryLine(event.delivery, ctx));
      if (options.printBody) out.write(printable(prettyBody(event.delivery.body.toString('utf8'))));
    } else if (event.type === 'refused')
      out.write(ctx.color.dim(`refused ${event.method} ${event.path}: ${event.status || 'aborted'} ${event.reason}`));
    else writeLine(ctx.stderr, `${ctx.color.red('capture error:')} ${event.message}`);
  };
}

function syncPrinter(options: ListenCommandOptions, ctx: CliContext, out: LineWriter) {
  return (event: WebhookSyncEvent) => {
    const at = new Date().toISOString();
    if (!options.json) {
      const line = syncEventLine(event, ctx);
      if (line) out.write(line);
    } else if (event.type === 'sync-done')
      out.write(
        JSON.stringify({
          kind: event.type,
          userId: event.userId,
          entity: event.entity,
          run: event.run,
          ...event.summary,
          at,
        }),
      );
    else out.write(JSON.stringify({ ...event, type: undefined, kind: event.type, at }));
  };
}

interface Banner {
  url: string;
  inspectorUrl: string | undefined;
  verifying: boolean;
  headerName: string;
  forwardTo: string | undefined;
  syncing: boolean;
  /** The Redis the syncs are queued in (password masked), when listen --sync --queue. */
  queue: string | undefined;
}

function printBanner(options: ListenCommandOptions, ctx: CliContext, banner: Banner): void {
  const { url, inspectorUrl, verifying, headerName, forwardTo, syncing, queue } = banner;
  if (options.json) {
    writeLine(
      ctx.stdout,
      JSON.stringify({
        kind: 'listening',
        url,
        inspectorUrl: inspectorUrl ?? null,
        verifying,
        headerName,
        capture: options.capture ?? null,
        forwardTo: forwardTo ?? null,
        sync: syncing,
        queue: queue ?? null,
      }),
    );
    return;
  }
  const parts = [`${ctx.color.bold('listening on')} ${url}`];
  if (inspectorUrl) parts.push(`inspector at ${inspectorUrl}`);
  if (forwardTo) parts.push(`forwarding to ${forwardTo}`);
  if (options.capture) parts.push(`capturing to ${options.capture}`);
  if (queue) parts.push(`queueing syncs in ${queue}`);
  else if (syncing) parts.push(`syncing into ${options.out}`);
  writeLine(ctx.stdout, parts.join(', '));
  if (!verifying)
    writeLine(
      ctx.stdout,
      ctx.color.yellow(
        'no webhook secret configured: deliveries are NOT verified (pass --secret-file, set LEDGERHOOK_WEBHOOK_SECRET, or `ledgerhook config set webhookSecret -`)',
      ),
    );
  writeLine(ctx.stdout, ctx.color.dim('Ctrl-C to stop'));
}

export async function run(options: ListenCommandOptions, ctx: CliContext): Promise<void> {
  const secrets = await resolveWebhookSecrets(options, ctx);
  checkFlags(options, secrets);
  const headerName = await resolveHeaderName(options, ctx);
  const forwardTo = options.forwardTo !== undefined ? resolveTarget(options.forwardTo) : undefined;
  const out = batchedLineWriter(ctx.stdout);
  // The inspector (--ui, --ui-port or --ui-host) is fed by the same events as the printer; loaded only then.
  const ui: Inspector | undefined =
    options.ui || options.uiPort !== undefined || options.uiHost !== undefined
      ? (await import('../listen-inspector.js')).listenInspector(options, secrets)
      : undefined;
  const printSync = syncPrinter(options, ctx, out);
  // --sync --queue: enqueue for `ledgerhook worker`s instead of syncing here (issue #13).
  const queueUrl = options.sync ? (options.queue ?? ctx.env.LEDGERHOOK_QUEUE) : undefined;
  const queued = queueUrl
    ? await createListenQueue(options, ctx, (event) => {
        const at = new Date().toISOString();
        const line = options.json
          ? JSON.stringify({ kind: event.outcome, ...event, outcome: undefined, at })
          : queueEventLine(event, ctx);
        if (line) out.write(line);
      })
    : undefined;
  const sync =
    options.sync && !queued
      ? await createListenSync(options, ctx, (event) => {
          ui?.onSyncEvent(event);
          printSync(event);
        })
      : undefined;
  const printEvent = listenerPrinter(options, ctx, out);
  const listener = await startListener({
    port: options.port,
    host: options.host,
    path: options.path === undefined ? undefined : options.path.startsWith('/') ? options.path : `/${options.path}`,
    secrets,
    headerName,
    toleranceSeconds: options.tolerance,
    allowFutureIat: options.allowFutureIat,
    acceptInvalid: options.acceptInvalid,
    maxBodyBytes: options.maxBody,
    requestTimeoutMs: Math.round(options.requestTimeout * 1000),
    idleTimeoutMs: Math.round(options.idleTimeout * 1000),
    maxConnections: options.maxConnections,
    capture: options.capture
      ? { path: options.capture, sync: options.captureSync, refusedBodies: options.captureRefusedBodies }
      : undefined,
    forwardTo,
    onAccepted: sync ? (delivery) => sync.handle(delivery) : undefined,
    // Awaited before the answer: a 2xx means the delivery's jobs are in Redis.
    subscribers: queued ? [queueSubscriber(queued)] : undefined,
    onEvent: (event) => {
      ui?.onListenerEvent(event);
      printEvent(event);
    },
  });
  let inspector: Awaited<ReturnType<Inspector['start']>> | undefined;
  try {
    inspector = await ui?.start(listener.url, forwardTo);
  } catch (error) {
    await listener.close();
    throw error;
  }
  printBanner(options, ctx, {
    url: listener.url,
    inspectorUrl: inspector?.url,
    verifying: secrets.length > 0,
    headerName,
    forwardTo: forwardTo?.href,
    syncing: Boolean(sync || queued),
    queue: queueUrl === undefined ? undefined : redactRedisUrl(queueUrl),
  });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  await inspector?.close();
  await sync?.idle();
  await queued?.close();
  out.flush();
  const s = listener.stats;
  if (options.json) writeLine(ctx.stdout, JSON.stringify({ kind: 'summary', ...s, captured: listener.captured }));
  else
    writeLine(
      ctx.stdout,
      `\nreceived ${plural(s.deliveries, 'delivery', 'deliveries')}: ${s.valid} valid, ${s.invalid} invalid, ${s.unverified} not verified; ${plural(s.refused, 'request')} refused${s.busy ? ` (${s.busy} busy)` : ''}${options.capture ? `; ${listener.captured} captured to ${options.capture}` : ''}`,
    );
}
