import { readCaptures, selectCaptures } from '../../capture/read-captures.js';
import { resolveTarget } from '../../delivery/target.js';
import { LedgerhookError } from '../../errors.js';
import { replayDeliveries } from '../../replay/replay.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { ReplayCommandOptions } from '../definitions/replay.js';
import { describeRecord } from '../delivery-line.js';
import { requireWebhookSecrets } from '../resolve-settings.js';

export async function run(options: ReplayCommandOptions, ctx: CliContext): Promise<void> {
  const url = resolveTarget(options.to);
  const { records, warnings } = await readCaptures(options.file);
  for (const warning of warnings) writeLine(ctx.stderr, `${ctx.color.yellow('warning:')} ${options.file}: ${warning}`);
  const chosen = selectCaptures(records, {
    ...(options.id !== undefined ? { id: options.id } : {}), ...(options.index !== undefined ? { index: options.index } : {}),
    ...(options.last !== undefined ? { last: options.last } : {}), ...(options.type !== undefined ? { type: options.type } : {}),
    ...(options.event !== undefined ? { event: options.event } : {}), ...(options.user !== undefined ? { user: options.user } : {}),
  });
  const secret = options.asCaptured ? undefined : (await requireWebhookSecrets(options, ctx))[0]!.secret;
  // Default: re-sign under the header each delivery was captured with.
  const headerName = options.headerName ?? ctx.env.LEDGERHOOK_HEADER_NAME;
  const results: Array<{ id: string; status?: number; latencyMs?: number; error?: string }> = [];
  const { summary } = await replayDeliveries({
    records: chosen, url, asCaptured: Boolean(options.asCaptured), concurrency: options.concurrency,
    timeoutMs: Math.round(options.timeout * 1000), signal: ctx.signal,
    ...(secret !== undefined ? { secret } : {}), ...(headerName ? { headerName } : {}), ...(options.delay !== undefined ? { delayMs: options.delay } : {}),
    onProgress: ({ record, outcome }) => {
      const result = outcome.ok
        ? { id: record.id, status: outcome.response.status, latencyMs: Number(outcome.response.latencyMs.toFixed(2)) }
        : { id: record.id, error: outcome.error.message };
      results.push(result);
      if (options.json) return;
      const c = ctx.color;
      const answer = result.error !== undefined ? c.red(`no answer: ${result.error}`)
        : `${(result.status! >= 200 && result.status! < 300 ? c.green : c.red)(String(result.status))} in ${result.latencyMs} ms`;
      writeLine(ctx.stdout, `${c.dim(record.id)} ${describeRecord(record)} → ${answer}`);
    },
  });
  if (options.json) {
    writeJson(ctx, { url: url.href, resigned: !options.asCaptured, results, ...summary });
  } else {
    writeLine(ctx.stdout, `replayed ${summary.sent} of ${records.length} captured deliveries to ${url.href}${options.asCaptured ? ' with their original tokens' : ', re-signed with a fresh iat'}: ${summary.succeeded} answered 2xx`);
  }
  if (summary.networkErrors === summary.sent) throw new LedgerhookError('ERR_NETWORK', summary.firstNetworkError ?? 'no delivery got an answer');
  if (summary.failed > 0) throw new LedgerhookError('ERR_CHECK_FAILED', `${summary.failed} of ${summary.sent} replayed deliveries were not answered with 2xx`);
}
