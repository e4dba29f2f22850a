import { resolveTarget } from '../../../delivery/target.js';
import { usageError } from '../../../errors.js';
import { startRecordedMock } from '../../../mock/recorded-server.js';
import type { StoryEvent } from '../../../mock/recorded-story.js';
import { plural } from '../../../util/plural.js';
import { batchedLineWriter } from '../../batched-lines.js';
import { type CliContext, writeLine } from '../../context.js';
import { jsonLine } from '../../json-output.js';
import { printableLine } from '../../render-delivery.js';
import {
  otherEnvironmentSecrets,
  resolveHeaderName,
  resolveVerificationPrefix,
  resolveWebhookSecrets,
} from '../../resolve-settings.js';
import { faultsOf, type MockCommandOptions } from './definition.js';
import { webhookLine } from './webhook-line.js';

/** What generates data, which a recording replaces: given with --from, it is a mistake worth saying. */
function checkFlags(options: MockCommandOptions): void {
  if (options.churn !== undefined || options.user !== undefined)
    throw usageError(
      '--churn and --user change generated data; with --from the recording is served',
      'conflicting_flags',
    );
  if (options.env !== undefined && options.env !== 'local')
    throw usageError(
      'mock --from re-signs recorded webhooks with the local development secret only, never a sandbox or production one: drop --env',
      'replay_secret_not_local',
    );
}

/**
 * The one secret a replay signs with: --secret/--secret-file, else the local environment's (made on
 * first use). LEDGERHOOK_WEBHOOK_SECRET is not read here (it usually holds the sandbox's), and a
 * secret equal to a stored sandbox or production secret is refused.
 */
async function localSecret(options: MockCommandOptions, ctx: CliContext): Promise<string> {
  const explicit = (options.secret?.length ?? 0) > 0 || options.secretFile !== undefined;
  const local = { ...ctx, env: { ...ctx.env, LEDGERHOOK_WEBHOOK_SECRET: undefined, LEDGERHOOK_ENV: 'local' } };
  const [first] = explicit
    ? await resolveWebhookSecrets(options, ctx)
    : await resolveWebhookSecrets({ env: 'local' }, local, { createLocal: true });
  if (first === undefined) throw usageError('no local webhook secret to sign with', 'missing_webhook_secret');
  const real = await otherEnvironmentSecrets({ env: 'local' }, ctx);
  const same = real.find((other) => other.secret === first.secret && other.label !== 'local');
  if (same)
    throw usageError(
      `the secret given is the stored ${same.label} webhook secret: mock --from signs recorded webhooks with a local secret only`,
      'replay_secret_not_local',
    );
  return first.secret;
}

function storyLine(event: StoryEvent, ctx: CliContext): string | undefined {
  const c = ctx.color;
  const time = c.dim(new Date().toISOString().slice(11, 23));
  if (event.type === 'story-started') return c.dim('the recording plays from here');
  if (event.type === 'story-done') return c.dim('the recording has played to its end; its data stays served');
  // Names read from the recording are escaped before colour is put around them.
  const dataset = printableLine(event.dataset.replace(/\?$/, ''));
  if (event.type === 'waiting-for-read')
    return `${time} ${c.dim(`the next change of ${dataset} waits for your read of it (the recording read it ${event.recorded} times before, you ${event.reads})`)}`;
  if (event.type === 'read-not-seen')
    return `${time} ${c.yellow(`${dataset}: your consumer has not read it as the recording did (${event.reads} of ${event.recorded} reads); the story goes on`)}`;
  const what = `${dataset}: ${plural(event.changed, 'item')} changed, ${event.deleted} deleted (lastUpdatedDate ${printableLine(event.lastUpdatedDate)})`;
  return `${time} ${what}${event.announcedBy ? c.dim(` as announced by ${printableLine(event.announcedBy)}`) : ''}`;
}

export async function runFromRecording(options: MockCommandOptions, ctx: CliContext): Promise<void> {
  checkFlags(options);
  if (options.from === undefined) return;
  const webhookUrl = options.webhookUrl !== undefined ? resolveTarget(options.webhookUrl) : undefined;
  if (options.webhookRetries && !webhookUrl)
    throw usageError('--webhook-retries goes with --webhook-url', 'conflicting_flags');
  const localFlags = { ...options, env: 'local' };
  const secret = webhookUrl ? await localSecret(options, ctx) : undefined;
  const out = batchedLineWriter(ctx.stdout);
  const mock = await startRecordedMock({
    from: options.from,
    port: options.port,
    host: options.host,
    token: options.token,
    recordedFaults: options.faults === 'recorded',
    faults: faultsOf(options),
    deletedIdsOn: options.deletedIdsOn,
    since: options.since,
    granularity: options.granularity,
    speed: options.speed,
    webhookUrl,
    webhookSecret: secret,
    headerName: webhookUrl ? await resolveHeaderName(localFlags, ctx) : undefined,
    verificationPrefix: webhookUrl ? await resolveVerificationPrefix(localFlags, ctx) : undefined,
    webhookRetryScheduleMs: options.webhookRetries,
    onWebhook: (event) =>
      out.write(options.json ? jsonLine(event.type, { ...event, type: undefined }) : webhookLine(event, ctx.color)),
    onStory: (event) => {
      const line = options.json ? jsonLine(event.type, { ...event, type: undefined }) : storyLine(event, ctx);
      if (line) out.write(line);
    },
  });
  const { history } = mock;
  const webhooks = history.steps.filter((step) => step.kind === 'webhook').length;
  if (options.json)
    writeLine(
      ctx.stdout,
      jsonLine('listening', {
        baseUrl: mock.url,
        token: mock.token,
        from: options.from,
        datasets: history.datasets.size,
        webhooks,
        skippedWebhooks: history.skippedDeliveries,
        startsWithFirstRequest: history.startsWithRead,
        warnings: history.warnings,
      }),
    );
  else {
    const c = ctx.color;
    for (const warning of history.warnings.slice(0, 5))
      writeLine(ctx.stderr, `${c.yellow('warning:')} ${printableLine(warning)}`);
    writeLine(ctx.stderr, `${c.bold('mock of the recording')} ${printableLine(options.from)} at ${mock.url}`);
    writeLine(ctx.stderr, `${c.bold('bearer token')}    ${mock.token}`);
    writeLine(
      ctx.stderr,
      `${plural(history.datasets.size, 'dataset')}; ${plural(webhooks, 'webhook')} to send again${webhookUrl ? ` to ${webhookUrl.href}, signed with the local secret` : ' (give --webhook-url to receive them)'}${history.skippedDeliveries > 0 ? `; ${history.skippedDeliveries} not verified at receipt, not sent` : ''}`,
    );
    writeLine(
      ctx.stderr,
      c.dim(history.startsWithRead ? 'the recording plays from your first request' : 'the recording plays from now'),
    );
    writeLine(ctx.stderr, c.dim('Ctrl-C to stop'));
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await mock.close();
  out.flush();
}
