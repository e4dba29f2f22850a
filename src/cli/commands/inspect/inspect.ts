import { readCaptureFile, recordingDeliveries } from '../../capture-warnings.js';
import { appendCaptureRecord } from '../../../capture/append-record.js';
import { resolveTarget } from '../../../delivery/target.js';
import { memorySource } from '../../../inspector/inspector-source.js';
import { plural } from '../../../util/plural.js';
import { writeLine, type CliContext } from '../../context.js';
import { jsonLine, markJsonLines } from '../../json-output.js';
import type { InspectCommandOptions } from './definition.js';
import { serveInspector } from '../../inspector-cli.js';
import { resolveTolerance } from '../../resolve-service-settings.js';
import { captureRedaction } from '../../redaction.js';
import { resolveVerificationPrefix, resolveWebhookSecrets } from '../../resolve-settings.js';

export async function run(options: InspectCommandOptions, ctx: CliContext): Promise<void> {
  // JSON Lines: one event per line, each with kind and time; a failure ends the stream with an error line.
  if (options.json) markJsonLines(ctx);
  // Ctrl-C is handled from the start: a signal that comes right after the first line must not kill the process.
  const { signal: stopped } = ctx;
  if (stopped.aborted) return;
  const { records } = await readCaptureFile(options.file, ctx);
  const forwardTo = options.to === undefined ? undefined : resolveTarget(options.to).href;
  const secrets = await resolveWebhookSecrets(options, ctx);
  // --redact: the page never receives a personal value (the file is left as it is).
  const redaction = await captureRedaction(options.redact, ctx);
  const source = memorySource(redaction ? records.map(redaction.record) : records);
  // An edited delivery sent from the page is appended to the file it was edited from (one whole line,
  // O_APPEND), so that `captures show` finds it and its editedFrom link.
  const inspector = await serveInspector(source, {
    recordSent: (record) => appendCaptureRecord(recordingDeliveries(options.file), record),
    port: options.port,
    host: options.host,
    title: options.file,
    secrets,
    toleranceSeconds: await resolveTolerance(options, ctx),
    verificationPrefix: await resolveVerificationPrefix(options, ctx),
    forwardTo,
  });
  // Memory is bounded (inspector-source.ts): past the bound only the newest are kept, and we say so.
  const shown = source.snapshot().length;
  if (options.json)
    writeLine(
      ctx.stdout,
      jsonLine('inspecting', {
        inspectorUrl: inspector.url,
        file: options.file,
        deliveries: records.length,
        shown,
      }),
    );
  else {
    writeLine(
      ctx.stderr,
      `${ctx.color.bold('inspector')} ${inspector.url} (${plural(records.length, 'delivery', 'deliveries')} from ${options.file})`,
    );
    if (shown < records.length)
      writeLine(
        ctx.stderr,
        ctx.color.yellow(
          `the page holds the newest ${shown} (a memory bound); select older ones with \`ledgerhook captures list\``,
        ),
      );
    if (secrets.length === 0)
      writeLine(
        ctx.stderr,
        ctx.color.dim('no webhook secret: the page shows recorded verdicts and replays only as captured'),
      );
    writeLine(ctx.stderr, ctx.color.dim('Ctrl-C to stop'));
  }
  const signal = ctx.signal;
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await inspector.close();
}
