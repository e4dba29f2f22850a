import { usageError } from '../errors.js';
import { createWebhookSync, userDirectory, type WebhookSyncEvent } from '../webhook-sync/webhook-sync.js';
import type { CliContext } from './context.js';
import type { ListenCommandOptions } from './definitions/listen.js';
import { readInputFile } from './read-input.js';
import { resolveBaseUrl, resolveToken, stateStore } from './resolve-dataset.js';
import { resolveEnvironment, settingsStore } from './resolve-settings.js';

async function readTokenMap(path: string): Promise<Map<string, string>> {
  let value: unknown;
  try {
    value = JSON.parse((await readInputFile(path, 'token map')).toString('utf8'));
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_USAGE') throw error;
    throw usageError(`${path} is not JSON; it must map userId to access token: { "user_1": "token..." }`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every((token) => typeof token === 'string' && token !== '')) {
    throw usageError(`${path} must be a JSON object mapping userId to access token: { "user_1": "token..." }`);
  }
  return new Map(Object.entries(value as Record<string, string>));
}

/** The `--sync` half of listen: resolves where and as whom to sync, and builds the webhook-driven sync. */
export async function createListenSync(options: ListenCommandOptions, ctx: CliContext, onEvent: (event: WebhookSyncEvent) => void) {
  const baseUrl = (await resolveBaseUrl(options, ctx))!;
  let tokenFor: (userId: string) => string | undefined;
  if (options.tokens && options.token) throw usageError('give --token (one token for every user) or --tokens FILE (per user), not both');
  // --tokens, then --token or LEDGERHOOK_TOKEN, then the stored tokensFile, then the stored token.
  const tokensFile = options.tokens ?? (options.token || ctx.env.LEDGERHOOK_TOKEN ? undefined : (await settingsStore(ctx)).get(resolveEnvironment(options.env, ctx), 'tokensFile'));
  if (tokensFile) {
    const map = await readTokenMap(tokensFile);
    tokenFor = (userId) => map.get(userId);
  } else {
    const token = await resolveToken(options, ctx);
    tokenFor = () => token;
  }
  return createWebhookSync({
    baseUrl, tokenFor, outDirFor: (userId) => userDirectory(options.out, userId), store: await stateStore(ctx),
    limit: options.limit, concurrency: options.syncConcurrency, signal: ctx.signal, onEvent,
  });
}

/** One human line per sync event. */
export function syncEventLine(event: WebhookSyncEvent, ctx: CliContext): string | undefined {
  const c = ctx.color;
  switch (event.type) {
    case 'sync-start':
      return c.dim(`  ↻ syncing ${event.dataset} for ${event.userId}`);
    case 'sync-done': {
      const s = event.summary;
      return `  ${c.green('✔')} ${s.dataset} for ${event.userId}: ${s.mode}, ${s.upserted} upserted, ${s.deleted} deleted, ${s.total} in ${s.file}`;
    }
    case 'sync-failed':
      return `  ${c.red('✖')} ${event.dataset} for ${event.userId}: ${event.error}`;
    case 'sync-coalesced':
      return undefined;
    case 'unknown-entity':
      return c.yellow(`  ! ${event.entity} is not in the catalogue: skipped (the entity list grows; update ledgerhook)`);
    case 'no-token':
      return c.yellow(`  ! no access token for ${event.userId}: ${event.entities.join(', ')} not synced`);
    case 'lifecycle':
      return `  ${c.cyan('→')} ${event.event} for ${event.userId}: ${event.message}`;
  }
}
