import { parseWebhookBody } from '@ledgerhook/webhooks';
import type { EnqueueOutcome, SyncQueue } from './sync-queue.js';

/** The part of a received delivery the queue needs: its verdict and its raw body. */
export interface QueueableDelivery {
  /** false: refused as forged (never enqueued); null: nothing was verified. */
  valid: boolean | null;
  body: Uint8Array;
  /** The delivery's id, carried by its jobs so a change can say which delivery caused it. */
  id?: string | undefined;
  /** The W3C traceparent of the delivery's span (a traced listener), carried by its jobs. */
  traceparent?: string | undefined;
}

export type QueueRecorderEvent =
  | EnqueueOutcome
  | { outcome: 'queue-failed'; userId: string; entities: string[]; error: string };

/**
 * `listen --sync --queue`: each accepted ENTITY_UPDATE becomes one job per (user, dataset).
 * `record` resolves once every job is in Redis and rejects when Redis did not take them, so a
 * receiver that awaits it before answering never answers 2xx for a delivery it did not queue.
 */
export function createQueueRecorder(queue: SyncQueue, onEvent?: (event: QueueRecorderEvent) => void) {
  return {
    async record(delivery: QueueableDelivery): Promise<void> {
      if (delivery.valid === false) return;
      const parsed = parseWebhookBody(delivery.body);
      if (!parsed.ok || parsed.body.type !== 'ENTITY_UPDATE') return;
      const { userId, entities } = parsed.body;
      let outcomes: EnqueueOutcome[];
      try {
        outcomes = await queue.enqueueEntities(userId, entities, delivery.id, delivery.traceparent);
      } catch (error) {
        onEvent?.({ outcome: 'queue-failed', userId, entities, error: (error as Error).message });
        throw error;
      }
      for (const outcome of outcomes) onEvent?.(outcome);
    },
    close: () => queue.close(),
  };
}
