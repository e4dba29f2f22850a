import type { ChalkInstance } from 'chalk';
import { usageError } from '../../../errors.js';
import { resolveTarget } from '../../../delivery/target.js';
import { startMockServer } from '../../../mock/mock-server.js';
import type { MutationResult } from '../../../mock/mock-types.js';
import { batchedLineWriter } from '../../batched-lines.js';
import { type CliContext, writeLine } from '../../context.js';
import { jsonLine, markJsonLines } from '../../json-output.js';
import { faultsOf, type MockCommandOptions } from './definition.js';
import { runFromRecording } from './mock-from.js';
import { webhookLine } from './webhook-line.js';
import { requireWebhookSecrets, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';

/** "12:00:01.123 /expenses: created 7,8; deleted 3" */
function mutationLine(result: MutationResult, c: ChalkInstance): string {
  const parts: Array<[string, number[]]> = [
    ['created', result.created],
    ['updated', result.updated],
    ['deleted', result.deleted],
    ['retyped', result.retyped],
  ];
  const what = parts
    .filter(([, ids]) => ids.length > 0)
    .map(([verb, ids]) => `${verb} ${ids.join(',')}`)
    .join('; ');
  return `${c.dim(result.at.slice(11, 23))} ${result.path}: ${what || 'no change'}`;
}

function printBanner(ctx: CliContext, mock: { url: string; token: string }, webhookUrl: URL | undefined): void {
  // Status, not results: stderr (stdout holds one line per change).
  const c = ctx.color;
  writeLine(ctx.stderr, `${c.bold('mock service at')} ${mock.url}`);
  writeLine(ctx.stderr, `${c.bold('bearer token')}    ${mock.token}`);
  writeLine(
    ctx.stderr,
    c.dim(`try: curl -H "Authorization: Bearer ${mock.token}" -H "limit: 100" ${mock.url}/expenses`),
  );
  writeLine(ctx.stderr, c.dim(`sync it: ledgerhook sync expenses --base-url ${mock.url} --token ${mock.token}`));
  const root = mock.url.replace(/\/rest\/v5$/, '');
  writeLine(
    ctx.stderr,
    c.dim(`change data: curl -X POST -d '{"path":"/expenses","create":2,"update":1}' ${root}/__mock/mutate`),
  );
  if (webhookUrl) writeLine(ctx.stderr, c.dim(`webhooks go to ${webhookUrl.href}`));
  writeLine(ctx.stderr, c.dim('Ctrl-C to stop'));
}

export async function run(options: MockCommandOptions, ctx: CliContext): Promise<void> {
  // JSON Lines: one event per line, each with kind and time; a failure ends the stream with an error line.
  if (options.json) markJsonLines(ctx);
  // Ctrl-C is handled from the start: a signal that comes right after the first line must not kill the process.
  const { signal: stopped } = ctx;
  if (stopped.aborted) return;
  if (options.from !== undefined) return runFromRecording(options, ctx);
  if (options.speed !== undefined || options.faults !== undefined)
    throw usageError('--speed and --faults go with --from DIR', 'conflicting_flags');
  const webhookUrl = options.webhookUrl !== undefined ? resolveTarget(options.webhookUrl) : undefined;
  if (options.webhookRetries && !webhookUrl)
    throw usageError('--webhook-retries goes with --webhook-url', 'conflicting_flags');
  const secret = webhookUrl ? (await requireWebhookSecrets(options, ctx, { createLocal: true }))[0]?.secret : undefined;
  const headerName = webhookUrl ? await resolveHeaderName(options, ctx) : undefined;
  const verificationPrefix = webhookUrl ? await resolveVerificationPrefix(options, ctx) : undefined;
  const out = batchedLineWriter(ctx.stdout);
  const signal = ctx.signal;
  const mock = await startMockServer({
    port: options.port,
    host: options.host,
    seed: options.seed,
    items: options.items,
    otherItems: options.otherItems,
    deletedIdsOn: options.deletedIdsOn,
    since: options.since,
    granularity: options.granularity,
    maxLimit: options.maxLimit,
    token: options.token,
    userId: options.user,
    churnSeconds: options.churn,
    webhookUrl,
    webhookSecret: secret,
    webhookRetryScheduleMs: options.webhookRetries,
    headerName,
    verificationPrefix,
    faults: faultsOf(options),
    onMutation: (result) =>
      out.write(options.json ? jsonLine('mutation', { ...result, items: undefined }) : mutationLine(result, ctx.color)),
    onWebhook: (event) =>
      out.write(options.json ? jsonLine(event.type, { ...event, type: undefined }) : webhookLine(event, ctx.color)),
  });
  // Tests and scripts read the first JSON line to find the server.
  if (options.json) writeLine(ctx.stdout, jsonLine('listening', { baseUrl: mock.url, token: mock.token }));
  else printBanner(ctx, mock, webhookUrl);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await mock.close();
  out.flush();
}
