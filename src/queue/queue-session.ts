import { Queue } from 'bullmq';
import { connectRedis, ensureConnected, queueUnreachable } from './redis-connection.js';

/**
 * A queue opened for one read or change from the command line (status, retry): connected before
 * `use` runs, any failure said as queueUnreachable, and the connection closed however it ends.
 */
export async function withQueue<T>(
  options: { url: string; queueName: string },
  use: (queue: Queue) => Promise<T>,
): Promise<T> {
  const redis = connectRedis(options.url, 'producer');
  const queue = new Queue(options.queueName, { connection: redis });
  queue.on('error', () => {});
  try {
    await ensureConnected(redis, options.url);
    return await use(queue);
  } catch (error) {
    throw queueUnreachable(error, options.url, redis);
  } finally {
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}
