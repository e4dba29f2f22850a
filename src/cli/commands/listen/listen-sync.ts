import { usageError } from '../../../errors.js';
import { resolveTokenFor } from '../../token-map.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../../webhook-sync/webhook-sync.js';
import { printable, quoted } from '../../render-delivery.js';
import { syncDoneLine } from '../../sync-done-line.js';
import type { CliContext } from '../../context.js';
import type { ListenCommandOptions } from './definition.js';
import { fileStore, resolveBaseUrl } from '../../resolve-dataset.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import type { Telemetry } from '../../../telemetry/telemetry.js';
import { rateDispatcher, resolveReadSettings } from '../../resolve-service-settings.js';

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
  const tokenFor = await resolveTokenFor(options, ctx);
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
