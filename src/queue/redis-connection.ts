import { Redis } from 'ioredis';
import { LedgerhookError } from '../errors.js';
import { networkError } from '../http/network-error.js';
import { checkRedisUrl, redactRedisUrl } from './queue-target.js';

export { checkQueueName, checkRedisUrl, DEFAULT_QUEUE_NAME, redactRedisUrl } from './queue-target.js';

/**
 * An ioredis connection. Workers block on Redis and must retry forever (BullMQ requires
 * maxRetriesPerRequest: null); producers give up after one reconnection so that a receiver never answers 2xx for a
 * delivery Redis did not take.
 */
export function connectRedis(url: string, role: 'worker' | 'producer'): Redis {
  const redis = new Redis(checkRedisUrl(url), {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    connectTimeout: 5000,
  });
  // Connection errors surface on the commands that need the connection; none crashes the process.
  // The last one is kept: a command that gives up says why (refused, unknown host), not ioredis' retry count.
  redis.on('error', (error: Error) => connectionErrors.set(redis, error));
  return redis;
}

const connectionErrors = new WeakMap<Redis, Error>();

/** Connects (for lazily connecting clients) and turns a failure into one neutral line. */
export async function ensureConnected(redis: Redis, url: string): Promise<void> {
  if (redis.status === 'ready') return;
  try {
    await redis.ping();
  } catch (error) {
    throw queueUnreachable(error, url, redis);
  }
}

/**
 * One line naming the queue and why it cannot be reached: the connection's own failure in words
 * (network-error.ts: "nothing is listening on 127.0.0.1:6379 (connection refused)"), never ioredis'
 * internals ("Reached the max retries per request limit").
 */
export function queueUnreachable(error: unknown, url: string, redis?: Redis): LedgerhookError {
  if (error instanceof LedgerhookError) return error;
  const cause = (redis && connectionErrors.get(redis)) ?? error;
  const parsed = new URL(url);
  const address = new URL(`redis://${parsed.hostname}:${parsed.port || '6379'}`);
  const why = (cause as { code?: unknown }).code
    ? networkError(cause, 'CONNECT', address).message
    : (cause as Error).message;
  return new LedgerhookError('ERR_NETWORK', `cannot reach the Redis queue ${redactRedisUrl(url)}: ${why}`, {
    cause: error,
    details: { reason: 'queue_unreachable' },
  });
}
