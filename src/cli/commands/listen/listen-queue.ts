import { createQueueRecorder, type QueueRecorderEvent } from '../../../queue/queue-recorder.js';
import type { CliContext } from '../../context.js';
import { printable, quoted } from '../../render-delivery.js';
import type { ListenCommandOptions } from './definition.js';
import { resolveQueue } from '../../resolve-scale.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import { traceOf } from '../../../telemetry/telemetry.js';

/**
 * The `--sync --queue` half of listen: instead of syncing in this process, every accepted
 * ENTITY_UPDATE is enqueued for `ledgerhook worker`s (tokens and the store live with them).
 */
export async function createListenQueue(
  options: ListenCommandOptions,
  ctx: CliContext,
  onEvent: (event: QueueRecorderEvent) => void,
) {
  const target = resolveQueue(options, ctx);
  const { SyncQueue } = await import('../../../queue/sync-queue.js');
  const queue = new SyncQueue({ ...target, paths: await resolveEntityPaths(options, ctx) });
  await queue.connect();
  return createQueueRecorder(queue, onEvent);
}

/** One human line per queue event (a coalesced request joins a job already queued: not worth a line). */
export function queueEventLine(event: QueueRecorderEvent, ctx: CliContext): string | undefined {
  const c = ctx.color;
  const user = quoted(event.userId);
  switch (event.outcome) {
    case 'queued':
      return c.dim(`  ⇢ queued ${event.dataset} for ${user} (job ${event.jobId})`);
    case 'coalesced':
      return undefined;
    case 'unknown-entity':
      return c.yellow(`  ! ${quoted(event.entity)} is not in the catalogue: not queued`);
    case 'invalid-user':
      return c.yellow(`  ! userId ${user.slice(0, 80)} cannot name a user: ${quoted(event.entity)} not queued`);
    case 'queue-failed':
      return c.red(
        `  ✖ could not queue ${event.entities.map(quoted).join(', ')} for ${user}: ${printable(event.error)}`,
      );
  }
}

/**
 * The recorder as a listener subscriber whose `record` is awaited before the answer (a 2xx then
 * means the jobs are in Redis; a Redis failure turns it into a 503 and the sender retries).
 */
export function queueSubscriber(recorder: Awaited<ReturnType<typeof createListenQueue>>) {
  return {
    record: (delivery: { verdict: { valid: boolean | null }; body: Uint8Array; id: string }) =>
      recorder.record({
        valid: delivery.verdict.valid,
        body: delivery.body,
        id: delivery.id,
        traceparent: traceOf(delivery)?.traceparent(),
      }),
  };
}
