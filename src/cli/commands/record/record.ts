import { resolveTarget } from '../../../delivery/target.js';
import { usageError } from '../../../errors.js';
import { assertNoRecording } from '../../../record/recording-writer.js';
import { checkRecordBaseUrl, type RecordingListenerOptions, startRecording } from '../../../record/start-recording.js';
import { plural } from '../../../util/plural.js';
import { shellQuote } from '../../../util/shell-quote.js';
import { batchedLineWriter } from '../../batched-lines.js';
import { redactFields } from '../../common-options.js';
import { type CliContext, writeLine } from '../../context.js';
import { jsonLine, markJsonLines } from '../../json-output.js';
import { exchangeJson, exchangeText } from '../../recording-lines.js';
import { resolveRedactor } from '../../redaction.js';
import { printableLine } from '../../render-delivery.js';
import { resolveBaseUrl } from '../../resolve-dataset.js';
import {
  resolveEntityPaths,
  resolveHeaderName,
  resolveVerificationPrefix,
  resolveWebhookSecrets,
} from '../../resolve-settings.js';
import { listenerPrinter } from '../listen/listen-output.js';
import type { RecordCommandOptions } from './definition.js';

type LineWriter = ReturnType<typeof batchedLineWriter>;

/** The webhook listener of the recording: secrets, header and prefix resolved exactly as `listen` resolves them. */
async function listenerOptions(
  options: RecordCommandOptions,
  ctx: CliContext,
  out: LineWriter,
): Promise<{ listener: RecordingListenerOptions; verifying: boolean } | undefined> {
  if (options.listenPort === undefined) return undefined;
  const secrets = await resolveWebhookSecrets(options, ctx, { createLocal: true });
  return {
    verifying: secrets.length > 0,
    listener: {
      port: options.listenPort,
      host: options.host,
      verification: {
        secrets,
        headerName: await resolveHeaderName(options, ctx),
        verificationPrefix: await resolveVerificationPrefix(options, ctx),
        toleranceSeconds: options.tolerance,
      },
      forward: { to: options.forwardTo === undefined ? undefined : resolveTarget(options.forwardTo) },
      onEvent: listenerPrinter(options.json ? { json: true } : {}, ctx, out),
    },
  };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export async function run(options: RecordCommandOptions, ctx: CliContext): Promise<void> {
  // JSON Lines: one event per line, each with kind and time; a failure ends the stream with an error line.
  if (options.json) markJsonLines(ctx);
  if (ctx.signal.aborted) return;
  if (options.forwardTo !== undefined && options.listenPort === undefined)
    throw usageError('--forward-to goes with --listen-port', 'conflicting_flags');
  const baseUrl = (await resolveBaseUrl(options, ctx)) as string;
  // Every input is checked before the redaction key is made (on first use) or a port is bound.
  checkRecordBaseUrl(baseUrl);
  assertNoRecording(options.out);
  const redactor = await resolveRedactor(redactFields(options.redact) ?? [], ctx);
  const out = batchedLineWriter(ctx.stdout);
  const webhooks = await listenerOptions(options, ctx, out);
  let exchanges = 0;
  const recording = await startRecording({
    baseUrl,
    paths: await resolveEntityPaths(options, ctx),
    output: {
      dir: options.out,
      redactor,
      sync: options.fsync,
      maxBytes: options.maxBytes,
      maxRecordedBodyBytes: options.maxBody,
    },
    port: options.port,
    host: options.host,
    listener: webhooks?.listener,
    onExchange: (exchange) => {
      exchanges += 1;
      out.write(options.json ? jsonLine('exchange', exchangeJson(exchange)) : exchangeText(exchange, ctx));
    },
    onRefused: (refusal) => {
      if (options.json) out.write(jsonLine('refused', refusal));
      else
        out.write(
          ctx.color.dim(
            printableLine(`refused ${refusal.method} ${refusal.path}: ${refusal.status} ${refusal.reason}`),
          ),
        );
    },
  });
  const listenerUrl = recording.listener?.url;
  if (options.json)
    writeLine(
      ctx.stdout,
      jsonLine('recording', {
        proxyUrl: recording.proxyUrl,
        baseUrl,
        dir: options.out,
        listenerUrl: listenerUrl ?? null,
      }),
    );
  else {
    // Status, not results: stderr (stdout holds one line per exchange and delivery).
    writeLine(ctx.stderr, `${ctx.color.bold('recording into')} ${options.out}, forwarding to ${baseUrl}`);
    writeLine(
      ctx.stderr,
      `point your client at ${recording.proxyUrl} (the Authorization header is forwarded, never recorded)`,
    );
    if (listenerUrl)
      writeLine(
        ctx.stderr,
        `webhooks: ${listenerUrl}${webhooks?.verifying ? '' : ctx.color.yellow(' (no webhook secret: NOT verified, and not re-sent by mock --from)')}`,
      );
    writeLine(ctx.stderr, ctx.color.dim('Ctrl-C to stop'));
  }
  await untilAborted(ctx.signal);
  await recording.close();
  out.flush();
  const deliveries = recording.listener?.captured ?? 0;
  if (options.json) writeLine(ctx.stdout, jsonLine('summary', { exchanges, deliveries, dir: options.out }));
  else
    writeLine(
      ctx.stdout,
      `\nrecorded ${plural(exchanges, 'exchange')}${recording.listener ? ` and ${plural(deliveries, 'delivery', 'deliveries')}` : ''} into ${options.out}; replay it with \`ledgerhook mock --from ${shellQuote(options.out)}\``,
    );
}
