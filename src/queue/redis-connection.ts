import { Redis } from 'ioredis';
import { LedgerhookError } from '../errors.js';
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
  redis.on('error', () => {});
  return redis;
}

/** Connects (for lazily connecting clients) and turns a failure into one neutral line. */
export async function ensureConnected(redis: Redis, url: string): Promise<void> {
  if (redis.status === 'ready') return;
  try {
    await redis.ping();
  } catch (error) {
    throw queueUnreachable(error, url);
  }
}

export function queueUnreachable(error: unknown, url: string): LedgerhookError {
  if (error instanceof LedgerhookError) return error;
  return new LedgerhookError(
    'ERR_NETWORK',
    `cannot reach the Redis queue ${redactRedisUrl(url)}: ${(error as Error).message}`,
    { cause: error, details: { reason: 'queue_unreachable' } },
  );
}
