import { startListener, type RunningListener } from '../../../listen/listener.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import { batchedLineWriter } from '../../batched-lines.js';
import type { CliContext } from '../../context.js';
import { markJsonLines } from '../../json-output.js';
import type { ListenCommandOptions } from './definition.js';
import type { InspectorFlags } from './listen-inspector.js';
import {
  localDevelopmentSecret,
  resolveEnvironment,
  resolveHeaderName,
  resolveVerificationPrefix,
  resolveWebhookSecrets,
} from '../../resolve-settings.js';
import { recordListener } from '../../local-listener.js';
import { configDirOf } from '../../local-environment.js';
import { createListenSync } from './listen-sync.js';
import { captureRedaction, type Redaction } from '../../redaction.js';
import { checkFlags, checkPairs } from './listen-checks.js';
import { createListenQueue, queueSubscriber } from './listen-queue.js';
import { listenerPrinter, printBanner, printListenSummary, queuePrinter, syncPrinter } from './listen-output.js';
import { redactRedisUrl } from '../../../queue/queue-target.js';
import { forwardPrinter, heldUntilReady, type ListenRouting, printPending, resolveRouting } from './listen-routes.js';
import type { ForwardEvent, ListenerEvent } from '../../../listen/listener.js';
import { matchesAny, type RouteSelector } from '../../../listen/route-selector.js';
import { deliveryNames } from '../../../listen/routes.js';

/** --events: a delivery it leaves out is not printed (a refused one always is: it is worth seeing). */
function shownByEvents(events: readonly RouteSelector[] | undefined): (event: ListenerEvent) => boolean {
  return (event) =>
    !events ||
    event.type !== 'delivery' ||
    event.delivery.verdict.valid === false ||
    !event.delivery.parsed.ok ||
    matchesAny(events, deliveryNames(event.delivery.parsed));
}
import { resolveTelemetry } from '../../telemetry-flag.js';
import { resolveTolerance } from '../../resolve-service-settings.js';
import type { Telemetry } from '../../../telemetry/telemetry.js';

type Inspector = ReturnType<typeof import('./listen-inspector.js').listenInspector>;

type LineWriter = ReturnType<typeof batchedLineWriter>;

/** The inspector (--ui, --ui-port or --ui-host) is fed by the same events as the printer; loaded only then. */
async function loadInspector(
  options: InspectorFlags & Pick<ListenCommandOptions, 'ui'>,
  secrets: readonly LabelledSecret[],
  verificationPrefix: string | undefined,
  redaction: Redaction | undefined,
): Promise<Inspector | undefined> {
  return options.ui || options.uiPort !== undefined || options.uiHost !== undefined
    ? (await import('./listen-inspector.js')).listenInspector(options, secrets, verificationPrefix, redaction?.record)
    : undefined;
}

/** What --sync opened: a queue (with --queue) or an in-process sync, or neither without --sync. */
interface Syncing {
  queueUrl: string | undefined;
  queued: Awaited<ReturnType<typeof createListenQueue>> | undefined;
  sync: Awaited<ReturnType<typeof createListenSync>> | undefined;
}

async function openSyncing(
  options: ListenCommandOptions,
  ctx: CliContext,
  out: LineWriter,
  ui: Inspector | undefined,
  telemetry: Telemetry | undefined,
): Promise<Syncing> {
  const printSync = syncPrinter(options, ctx, out);
  // --sync --queue: enqueue for `ledgerhook worker`s instead of syncing here.
  const queueUrl = options.sync ? (options.queue ?? ctx.env.LEDGERHOOK_QUEUE) : undefined;
  const queued = queueUrl ? await createListenQueue(options, ctx, queuePrinter(options, ctx, out)) : undefined;
  const sync =
    options.sync && !queued
      ? await createListenSync(
          options,
          ctx,
          (event) => {
            ui?.onSyncEvent(event);
            printSync(event);
          },
          telemetry,
        )
      : undefined;
  return { queueUrl, queued, sync };
}

interface Wiring {
  secrets: readonly LabelledSecret[];
  headerName: string;
  verificationPrefix: string | undefined;
  routing: ListenRouting;
  printForward: (event: ForwardEvent) => void;
  ui: Inspector | undefined;
  syncing: Syncing;
  telemetry: Telemetry | undefined;
  /** --redact: what is captured, shown and printed has its personal data replaced first. */
  redaction: Redaction | undefined;
}

/** Binds the listener with every flag translated, its events fed to the inspector and the printer. */
function startListening(
  options: ListenCommandOptions,
  ctx: CliContext,
  out: LineWriter,
  wiring: Wiring,
): Promise<RunningListener> {
  const { secrets, headerName, verificationPrefix, routing, ui, syncing, telemetry, redaction } = wiring;
  const { sync, queued } = syncing;
  const printEvent = listenerPrinter(options, ctx, out, redaction?.body);
  const shown = shownByEvents(routing.events);
  return startListener({
    port: options.port,
    host: options.host,
    path: options.path === undefined ? undefined : options.path.startsWith('/') ? options.path : `/${options.path}`,
    verification: {
      secrets,
      headerName,
      verificationPrefix,
      toleranceSeconds: options.tolerance,
      allowFutureIat: options.allowFutureIat,
      acceptInvalid: options.acceptInvalid,
    },
    limits: {
      maxBodyBytes: options.maxBody,
      requestTimeoutMs: Math.round(options.requestTimeout * 1000),
      idleTimeoutMs: Math.round(options.idleTimeout * 1000),
      maxConnections: options.maxConnections,
    },
    capture: options.capture
      ? {
          path: options.capture,
          sync: options.captureSync,
          refusedBodies: options.captureRefusedBodies,
          redact: redaction?.record,
          refused: { perSecond: options.captureRefusedRate, maxBytes: options.captureRefusedMax },
        }
      : undefined,
    forward: { routes: routing.routes, events: routing.events },
    retry: options.retry ? { scheduleMs: options.retry, resign: options.retryResign === true } : undefined,
    onForward: (event) => {
      ui?.onForwardEvent(event);
      wiring.printForward(event);
    },
    telemetry,
    onAccepted: sync ? (delivery) => sync.handle(delivery) : undefined,
    // Awaited before the answer: a 2xx means the delivery's jobs are in Redis.
    subscribers: queued ? [queueSubscriber(queued)] : undefined,
    onEvent: (event) => {
      // --events filters what is shown too (the delivery is still verified, captured and counted).
      if (!shown(event)) return;
      ui?.onListenerEvent(event);
      printEvent(event);
    },
  });
}

/** An inspector that cannot start takes the listener down with it: nothing is left bound. */
async function startInspector(ui: Inspector | undefined, listener: RunningListener, routing: ListenRouting) {
  // The inspector's replay goes where the catch-all (else the first route) forwards.
  const forwardTo = (routing.routes.find((route) => route.selectors.length === 0) ?? routing.routes[0])?.url;
  try {
    return await ui?.start(listener.url, forwardTo, (record) => listener.appendCapture(record));
  } catch (error) {
    await listener.close();
    throw error;
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The listener, then the inspector; if either fails, the queue's Redis connection is released first. */
async function startServing(
  options: ListenCommandOptions,
  ctx: CliContext,
  out: LineWriter,
  wiring: Parameters<typeof startListening>[3],
) {
  try {
    const listener = await startListening(options, ctx, out, wiring);
    return { listener, inspector: await startInspector(wiring.ui, listener, wiring.routing) };
  } catch (error) {
    await wiring.syncing.queued?.close().catch(() => {});
    throw error;
  }
}

export async function run(given: ListenCommandOptions, ctx: CliContext): Promise<void> {
  // JSON Lines: one event per line, each with kind and time; a failure ends the stream with an error line.
  if (given.json) markJsonLines(ctx);
  // --tolerance, else the stored tolerance, else 300: resolved once, for the listener and the inspector.
  const options = { ...given, tolerance: await resolveTolerance(given, ctx) };
  // Ctrl-C is handled from the start: a signal that comes right after the first line must not kill the process.
  const { signal: stopped } = ctx;
  if (stopped.aborted) return;
  // Flag pairs first: a usage error creates nothing (not even the local development secret).
  checkPairs(options);
  const routing = await resolveRouting(options);
  const secrets = await resolveWebhookSecrets(options, ctx, { createLocal: true });
  checkFlags(options, secrets);
  const telemetry = await resolveTelemetry(options, ctx);
  const headerName = await resolveHeaderName(options, ctx);
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  const out = batchedLineWriter(ctx.stdout);
  const forwards = heldUntilReady(forwardPrinter(options, ctx, out));
  const redaction = await captureRedaction(options.redact, ctx);
  const ui = await loadInspector(options, secrets, verificationPrefix, redaction);
  const syncing = await openSyncing(options, ctx, out, ui, telemetry);
  const { queueUrl, queued, sync } = syncing;
  const { listener, inspector } = await startServing(options, ctx, out, {
    secrets,
    headerName,
    verificationPrefix,
    routing,
    printForward: forwards.print,
    ui,
    syncing,
    telemetry,
    redaction,
  });
  // `send-sample` with no --to (or --to localhost) finds this listener through the record; gone on exit.
  const forget = recordListener(configDirOf(ctx.env), await resolveEnvironment(options.env, ctx), listener.url);
  printBanner(options, ctx, {
    url: listener.url,
    inspectorUrl: inspector?.url,
    verifying: secrets.length > 0,
    headerName,
    routing,
    syncing: Boolean(sync || queued),
    queue: queueUrl === undefined ? undefined : redactRedisUrl(queueUrl),
    localSecret: localDevelopmentSecret(secrets),
  });
  forwards.ready();
  try {
    await untilAborted(ctx.signal);
  } finally {
    forget();
  }
  // Deliveries stop first, then what they started (syncs, queued jobs) is let finish.
  await listener.close();
  await inspector?.close();
  await sync?.idle();
  await queued?.close();
  await telemetry?.flush();
  out.flush();
  printListenSummary(options, ctx, listener);
  printPending(options, ctx, listener.forwardsPending);
}
