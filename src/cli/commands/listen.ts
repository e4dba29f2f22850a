import { CaptureWriter } from '../../capture/capture-writer.js';
import { usageError } from '../../errors.js';
import { resolveTarget } from '../../delivery/target.js';
import { startListener, type ListenerEvent } from '../../listen/listener.js';
import { batchedLineWriter } from '../batched-lines.js';
import { writeLine, type CliContext } from '../context.js';
import type { ListenCommandOptions } from '../definitions/listen.js';
import { deliveryLine } from '../delivery-line.js';
import { resolveHeaderName, resolveWebhookSecrets } from '../resolve-settings.js';
import { createListenSync, syncEventLine } from '../listen-sync.js';

export async function run(options: ListenCommandOptions, ctx: CliContext): Promise<void> {
  const secrets = await resolveWebhookSecrets(options, ctx);
  const headerName = await resolveHeaderName(options, ctx);
  const forwardTo = options.forwardTo !== undefined ? resolveTarget(options.forwardTo) : undefined;
  const out = batchedLineWriter(ctx.stdout);
  const json = (value: unknown) => out.write(JSON.stringify(value));
  const onEvent = (event: ListenerEvent) => {
    if (options.json) {
      // `kind` tells the lines apart; a delivery's own `type` is its webhook type.
      if (event.type === 'delivery') json({ kind: 'delivery', ...event.record, body: undefined, headers: undefined });
      else json({ kind: event.type, ...event, type: undefined });
      return;
    }
    if (event.type === 'delivery') out.write(deliveryLine(event.record, ctx));
    else if (event.type === 'refused') out.write(ctx.color.dim(`refused ${event.method} ${event.path}: ${event.status || 'aborted'} ${event.reason}`));
    else writeLine(ctx.stderr, `${ctx.color.red('capture error:')} ${event.message}`);
  };
  const signal = ctx.signal;
  if (!options.sync && (options.token || options.tokens || options.baseUrl)) {
    throw usageError('--token, --tokens and --base-url go with --sync');
  }
  const sync = options.sync
    ? await createListenSync(options, ctx, (event) => {
      if (options.json) {
        if (event.type === 'sync-done') json({ kind: event.type, userId: event.userId, entity: event.entity, run: event.run, ...event.summary, at: new Date().toISOString() });
        else json({ kind: event.type, ...event, type: undefined, at: new Date().toISOString() });
      } else {
        const line = syncEventLine(event, ctx);
        if (line) out.write(line);
      }
    })
    : undefined;
  // Opened last, so that a bad flag above never leaves an empty capture file behind.
  const capture = options.capture ? await CaptureWriter.open(options.capture) : undefined;
  let listener;
  try {
    listener = await startListener({
      port: options.port, host: options.host, secrets, headerName, toleranceSeconds: options.tolerance,
      acceptInvalid: Boolean(options.acceptInvalid), maxBodyBytes: options.maxBody, requestTimeoutMs: Math.round(options.requestTimeout * 1000),
      ...(options.path ? { path: options.path.startsWith('/') ? options.path : `/${options.path}` } : {}),
      ...(capture ? { capture } : {}),
      ...(forwardTo ? { forwardTo } : {}),
      ...(sync ? { onAccepted: (record: Parameters<typeof sync.handle>[0]) => sync.handle(record) } : {}),
      onEvent,
    });
  } catch (error) {
    await capture?.close();
    throw error;
  }
  if (options.json) {
    json({ kind: 'listening', url: listener.url, verifying: secrets.length > 0, headerName, capture: options.capture ?? null, forwardTo: forwardTo?.href ?? null, sync: Boolean(sync) });
  } else {
    writeLine(ctx.stdout, `${ctx.color.bold('listening on')} ${listener.url}${forwardTo ? `, forwarding to ${forwardTo.href}` : ''}${capture ? `, capturing to ${capture.path}` : ''}${sync ? `, syncing into ${options.out}` : ''}`);
    if (secrets.length === 0) writeLine(ctx.stdout, ctx.color.yellow('no webhook secret configured: deliveries are NOT verified (pass --secret-file, set LEDGERHOOK_WEBHOOK_SECRET, or `ledgerhook config set webhookSecret -`)'));
    writeLine(ctx.stdout, ctx.color.dim('Ctrl-C to stop'));
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  await sync?.idle();
  out.flush();
  const s = listener.stats;
  if (options.json) json({ kind: 'summary', ...s, captured: capture?.written ?? 0 });
  else writeLine(ctx.stdout, `\nreceived ${s.deliveries} deliveries: ${s.valid} valid, ${s.invalid} invalid, ${s.unverified} not verified; ${s.refused} requests refused${capture ? `; ${capture.written} captured to ${capture.path}` : ''}`);
}
