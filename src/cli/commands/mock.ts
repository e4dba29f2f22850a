import { resolveTarget } from '../../delivery/target.js';
import { startMockServer } from '../../mock/mock-server.js';
import { batchedLineWriter } from '../batched-lines.js';
import { writeLine, type CliContext } from '../context.js';
import type { MockCommandOptions } from '../definitions/mock.js';
import { requireWebhookSecrets, resolveHeaderName } from '../resolve-settings.js';

export async function run(options: MockCommandOptions, ctx: CliContext): Promise<void> {
  const webhookUrl = options.webhookUrl !== undefined ? resolveTarget(options.webhookUrl) : undefined;
  const secret = webhookUrl ? (await requireWebhookSecrets(options, ctx))[0]!.secret : undefined;
  const headerName = webhookUrl ? await resolveHeaderName(options, ctx) : undefined;
  const out = batchedLineWriter(ctx.stdout);
  const c = ctx.color;
  const signal = ctx.signal;
  const mock = await startMockServer({
    port: options.port, host: options.host, seed: options.seed, items: options.items, otherItems: options.otherItems, deletedIdsOn: options.deletedIdsOn,
    ...(options.token ? { token: options.token } : {}),
    ...(options.user ? { userId: options.user } : {}),
    ...(options.churn ? { churnSeconds: options.churn } : {}),
    ...(webhookUrl ? { webhookUrl, webhookSecret: secret!, headerName: headerName! } : {}),
    faults: {
      ...(options.latency ? { latencyMs: options.latency } : {}),
      ...(options.failRate ? { failRate: options.failRate } : {}),
      ...(options.dropRate ? { dropRate: options.dropRate } : {}),
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    },
    onMutation: (result) => {
      if (options.json) out.write(JSON.stringify({ kind: 'mutation', ...result, items: undefined }));
      else out.write(`${c.dim(result.at.slice(11, 23))} ${result.path}: ${[['created', result.created], ['updated', result.updated], ['deleted', result.deleted], ['retyped', result.retyped]].filter(([, ids]) => (ids as number[]).length > 0).map(([what, ids]) => `${what} ${(ids as number[]).join(',')}`).join('; ') || 'no change'}`);
    },
    onWebhook: (event) => {
      if (options.json) out.write(JSON.stringify({ kind: event.type, ...event, type: undefined }));
      else {
        const what = event.body.type === 'ENTITY_UPDATE' ? `ENTITY_UPDATE ${event.body.entities.join(',')}` : `LIFECYCLE_EVENT ${event.body.event}`;
        out.write(event.type === 'webhook-sent' ? c.dim(`  webhook ${what} → ${event.status}`) : c.red(`  webhook ${what} failed: ${event.error}`));
      }
    },
  });
  if (options.json) {
    // Tests and scripts read this first line to find the server.
    writeLine(ctx.stdout, JSON.stringify({ baseUrl: mock.url, token: mock.token }));
  } else {
    writeLine(ctx.stdout, `${c.bold('mock service at')} ${mock.url}`);
    writeLine(ctx.stdout, `${c.bold('bearer token')}    ${mock.token}`);
    writeLine(ctx.stdout, c.dim(`try: curl -H "Authorization: Bearer ${mock.token}" -H "limit: 100" ${mock.url}/expenses`));
    writeLine(ctx.stdout, c.dim(`sync it: ledgerhook sync expenses --base-url ${mock.url} --token ${mock.token}`));
    writeLine(ctx.stdout, c.dim(`change data: curl -X POST -d '{"path":"/expenses","create":2,"update":1}' ${mock.url.replace(/\/rest\/v5$/, '')}/__mock/mutate`));
    if (webhookUrl) writeLine(ctx.stdout, c.dim(`webhooks go to ${webhookUrl.href}`));
    writeLine(ctx.stdout, c.dim('Ctrl-C to stop'));
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await mock.close();
  out.flush();
}
