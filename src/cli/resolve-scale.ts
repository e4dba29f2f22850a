import { usageError } from '../errors.js';
import { queueTarget } from '../queue/queue-target.js';
import type { CliContext } from './context.js';
import type { QueueFlags } from './commands/queue/definition.js';

/** --queue, else LEDGERHOOK_QUEUE; --queue-name, else LEDGERHOOK_QUEUE_NAME, else ledgerhook-sync. */
export function resolveQueue(flags: QueueFlags, ctx: CliContext): { url: string; queueName: string } {
  const url = flags.queue ?? ctx.env.LEDGERHOOK_QUEUE;
  if (!url) throw usageError('no queue: pass --queue redis://HOST:PORT or set LEDGERHOOK_QUEUE', 'missing_queue');
  return queueTarget(url, flags.queueName ?? ctx.env.LEDGERHOOK_QUEUE_NAME);
}

/** --store, else LEDGERHOOK_STORE; undefined when neither is set (the embedded file store then). */
export function resolveStoreUrl(flags: { store?: string | undefined }, ctx: CliContext): string | undefined {
  const url = flags.store ?? ctx.env.LEDGERHOOK_STORE;
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\//i.test(url))
    throw usageError(
      'the store must be a postgres:// URL (leave --store and LEDGERHOOK_STORE out for local files)',
      'invalid_store_url',
    );
  return url;
}

/** The Postgres store of `--store` (pg is loaded only here). */
export async function postgresStore(url: string, maxConnections: number, historyDays?: number) {
  const { PostgresStore } = await import('../store/postgres/postgres-store.js');
  return new PostgresStore({ url, maxConnections, historyDays });
}

/** --rate-limit's reading: one with the rateLimit setting's (resolve-service-settings.ts). */
export { parseRateLimitFlag as parseRateLimit } from './resolve-service-settings.js';
