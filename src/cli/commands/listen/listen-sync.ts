import { usageError } from '../../../errors.js';
import { readTokenMap } from '../../token-map.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../../webhook-sync/webhook-sync.js';
import { printable, quoted } from '../../render-delivery.js';
import { syncDoneLine } from '../../sync-done-line.js';
import type { CliContext } from '../../context.js';
import type { ListenCommandOptions } from './definition.js';
import { readInputFile } from '../../read-input.js';
import { fileStore, resolveBaseUrl, resolveToken } from '../../resolve-dataset.js';
import { resolveEntityPaths, resolveEnvironment, settingsStore } from '../../resolve-settings.js';
import type { Telemetry } from '../../../telemetry/telemetry.js';
import { rateDispatcher, resolveReadSettings } from '../../resolve-service-settings.js';

/** An access token kept in a file (out of shell history and process lists); surrounding whitespace dropped. */
async function readTokenFile(path: string): Promise<string> {
  const token = (await readInputFile(path, 'token file')).toString('utf8').trim();
  if (token === '') throw usageError(`the token file ${path} is empty`, 'invalid_token_file');
  return token;
}

/** The `--sync` half of listen: resolves where and as whom to sync, and builds the webhook-driven sync. */
export async function createListenSync(
  options: ListenCommandOptions,
  ctx: CliContext,
  onEvent: (event: WebhookSyncEvent) => void,
  telemetry?: Telemetry,
) {
  const baseUrl = await resolveBaseUrl(options, ctx);
  // Required: resolveBaseUrl throws a usage error rather than return nothing.
  if (baseUrl === undefined) throw usageError('no base URL for --sync', 'missing_base_url');
  let tokenFor: (userId: string) => string | undefined;
  if ([options.tokens, options.token, options.tokenFile].filter((flag) => flag !== undefined).length > 1)
    throw usageError(
      'give one of --token or --token-file (one token for every user) or --tokens FILE (per user), not several',
      'conflicting_flags',
    );
  // --tokens, then --token or LEDGERHOOK_TOKEN, then the stored tokensFile, then the stored token.
  const tokensFile =
    options.tokens ??
    (options.token || options.tokenFile || ctx.env.LEDGERHOOK_TOKEN
      ? undefined
      : (await settingsStore(ctx)).get(await resolveEnvironment(options.env, ctx), 'tokensFile'));
  if (tokensFile) {
    const map = await readTokenMap(tokensFile);
    tokenFor = (userId) => map.get(userId);
  } else {
    const token = options.tokenFile ? await readTokenFile(options.tokenFile) : await resolveToken(options, ctx);
    tokenFor = () => token;
  }
  // Each user's files in a directory of their own under --out (src/store/identity.ts).
  const store = await fileStore(ctx, options.out, { create: true });
  const paths = await resolveEntityPaths(options, ctx);
  const { rateLimit, ...read } = await resolveReadSettings(options, ctx);
  return createWebhookSync({
    baseUrl,
    tokenFor,
    store,
    paths,
    keepDeleted: options.keepDeleted,
    read,
    limits: { concurrency: options.syncConcurrency },
    reconcileEveryMs: options.reconcileEvery,
    dispatcher: await rateDispatcher(rateLimit, ctx),
    signal: ctx.signal,
    onEvent,
    telemetry,
  });
}

/** One human line per sync event. */
export function syncEventLine(event: WebhookSyncEvent, ctx: CliContext): string | undefined {
  const c = ctx.color;
  switch (event.type) {
    case 'sync-start':
      return c.dim(`  ↻ syncing ${event.dataset} for ${quoted(event.userId)}`);
    case 'sync-done':
      return syncDoneLine(event.summary, event.userId, c);
    case 'sync-failed':
      return `  ${c.red('✖')} ${event.dataset} for ${quoted(event.userId)}: ${printable(event.error)}`;
    case 'sync-coalesced':
      return undefined;
    case 'reconcile-done':
      return event.equal
        ? c.dim(`  ✔ reconcile ${event.dataset} for ${quoted(event.userId)}: equal`)
        : c.yellow(
            `  ≠ reconcile ${event.dataset} for ${quoted(event.userId)}: ${event.missing} missing, ${event.extra} extra, ${event.different} different${event.repaired ? ', repaired (no webhook announced them)' : ''}`,
          );
    case 'reconcile-failed':
      return `  ${c.red('✖')} reconcile ${event.dataset} for ${quoted(event.userId)}: ${printable(event.error)}`;
    case 'sync-retry':
      return c.yellow(
        `  ↻ ${event.dataset} for ${quoted(event.userId)}: ${printable(event.error)}; retry ${event.retry} in ${Math.max(1, Math.round(event.inMs / 1000))} s`,
      );
    case 'unknown-entity':
      return c.yellow(
        `  ! ${quoted(event.entity)} is not in the catalogue: skipped (the entity list grows; update ledgerhook)`,
      );
    case 'invalid-body':
      return c.yellow(`  ! not synced: ${printable(event.reason)} (${event.code})`);
    case 'bad-user':
      return c.yellow(`  ! ${printable(event.error)}: not synced`);
    case 'no-token':
      return c.yellow(
        `  ! no access token for ${quoted(event.userId)}: ${event.entities.map(quoted).join(', ')} not synced`,
      );
    case 'lifecycle':
      return `  ${c.cyan('→')} ${quoted(event.event)} for ${quoted(event.userId)}: ${printable(event.message)}`;
  }
}
