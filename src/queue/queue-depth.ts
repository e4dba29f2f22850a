import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Telemetry } from '../telemetry/telemetry.js';

const STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;

/**
 * The queue's depth as a gauge (`ledgerhook.queue.depth`, by state), read from Redis only when the
 * metrics are collected. Returns what stops it (before the connection is closed).
 */
export function observeQueueDepth(telemetry: Telemetry, redis: Redis, queueName: string): () => Promise<void> {
  const queue = new Queue(queueName, { connection: redis });
  queue.on('error', () => {});
  const stop = telemetry.observe('ledgerhook.queue.depth', async () => {
    const counts = await queue.getJobCounts(...STATES);
    return STATES.map((state) => ({
      value: counts[state] ?? 0,
      attributes: { 'messaging.destination.name': queueName, 'ledgerhook.queue.state': state },
    }));
  });
  return async () => {
    stop();
    await queue.close();
  };
}
