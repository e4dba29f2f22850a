import type { Redis } from 'ioredis';

/**
 * How long a dataset's run must wait before it may start, across every worker of the queue: 0 when
 * it may start now (and the next one's wait begins), else what is left of the last start's interval.
 * While a webhook burst lasts, a dataset is read at most once per interval instead of back to back:
 * the deliveries that come meanwhile join the waiting job. The first run after a quiet spell starts
 * at once. Key: `ledgerhook:<queue>:spacing:<dataset's job id>`, expiring by itself.
 */
export async function runSpacing(
  redis: Redis,
  queueName: string,
  datasetId: string,
  intervalMs: number,
): Promise<number> {
  if (intervalMs <= 0) return 0;
  const key = `ledgerhook:${queueName}:spacing:${datasetId}`;
  // Twice at most: a key that expires between the two calls leaves the start free.
  for (let tries = 0; tries < 2; tries += 1) {
    if ((await redis.set(key, '1', 'PX', Math.ceil(intervalMs), 'NX')) === 'OK') return 0;
    const left = await redis.pttl(key);
    if (left > 0) return left;
  }
  return 0;
}
