import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { Dispatcher } from 'undici';
import type { SharedBackoff } from '../http/retry-policy.js';
import { LedgerhookError } from '../errors.js';
import { isTransientFailure } from '../sync/transient.js';
import { backoffWait } from '../util/backoff.js';
import { checkedTraceparent } from '../telemetry/traceparent.js';
import { RECONCILE_ALL_JOB_NAME, RECONCILE_JOB_NAME } from './reconcile-schedule.js';
import { datasetOf, parseSyncJobData, SYNC_JOB_NAME, syncDedupeId, tokenKey } from './sync-job.js';
import type { SyncRunSummary, SyncWorkerEvent } from './sync-worker.js';
import type { ResolvedSyncWorkerOptions } from './sync-worker-options.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** A 401/403/404 or refused data will not heal by retrying: the job fails at once (sync/transient.ts). */
const isPermanent = (error: unknown) => !isTransientFailure(error);

export interface ProcessorEdges {
  emit: (event: SyncWorkerEvent) => void;
  dispatcher: Dispatcher;
  backoffFor: (tokenKey: string) => SharedBackoff;
  stopping: AbortSignal;
  /** How long a sync run of this dataset (its deduplication id) must wait to start (run-spacing.ts). */
  spacing: (datasetId: string) => Promise<number>;
  /** Enqueues one reconcile job per synced dataset (the schedule's reconcile-all job). */
  fanOutReconcile: (job: Job) => Promise<number>;
}

/** How often a job has been retried for transient failures (recorded in its data, read back as input). */
function transientRetries(job: Job): number {
  const retry = (job.data as { retry?: { count?: unknown } } | undefined)?.retry;
  return typeof retry?.count === 'number' && Number.isSafeInteger(retry.count) && retry.count >= 0 ? retry.count : 0;
}

/**
 * One job: checked (Redis data is input like any other), run, and reported. A sync job syncs its
 * dataset; a reconcile job compares it with the service and repairs it; reconcile-all fans out.
 */
export function jobProcessor(options: ResolvedSyncWorkerOptions, edges: ProcessorEdges) {
  const { telemetry } = options;
  const run = processJob(options, edges);
  // BullMQ passes a third argument of its own (a signal): the run is never handed to it directly.
  if (!telemetry.enabled) return (job: Job, lockToken?: string) => run(job, lockToken, telemetry);
  return (job: Job, lockToken?: string) => tracedJob(telemetry, job, (scoped) => run(job, lockToken, scoped));
}

/**
 * A job as a span (`ledgerhook.job`): in the trace of the delivery that queued it when its data
 * carries a well-formed traceparent (job data is input: anything else starts a new trace).
 */
async function tracedJob<T>(telemetry: Telemetry, job: Job, run: (scoped: Telemetry) => Promise<T>): Promise<T> {
  const carried = (job.data as { traceparent?: unknown } | undefined)?.traceparent;
  const span = telemetry.under(checkedTraceparent(carried)).span(
    'ledgerhook.job',
    {
      'messaging.operation.name': 'process',
      'ledgerhook.job.name': job.name,
      'ledgerhook.job.attempt': job.attemptsMade + 1,
    },
    undefined,
    'consumer',
  );
  try {
    return await run(telemetry.under(span));
  } catch (error) {
    // A job put back (shutdown) or delayed (transient failure) is not a failure of the span's work.
    if (!(error instanceof WaitingError || error instanceof DelayedError)) span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

function processJob(options: ResolvedSyncWorkerOptions, edges: ProcessorEdges) {
  const { emit, stopping } = edges;
  return async (
    job: Job,
    lockToken: string | undefined,
    telemetry: Telemetry,
  ): Promise<SyncRunSummary | { reconciled: number } | undefined> => {
    if (stopping.aborted) {
      // A closing worker can still be handed a job: a slot that was waiting for one when the
      // shutdown began takes the job another slot has just put back. It goes back unrun (running
      // it would wait on a signal that has already fired, and close() would never return).
      await job.moveToWait(lockToken);
      throw new WaitingError();
    }
    const run = job.id ?? '?';
    if (job.name === RECONCILE_ALL_JOB_NAME) {
      const queued = await edges.fanOutReconcile(job);
      emit({ type: 'reconcile-scheduled', run, queued });
      return { reconciled: queued };
    }
    const data = parseSyncJobData(job.data, options.paths);
    const reconcile = job.name === RECONCILE_JOB_NAME && options.runReconcile !== undefined;
    if ((job.name !== SYNC_JOB_NAME && !reconcile) || !data) {
      emit({ type: 'job-invalid', run });
      throw new UnrecoverableError('not a ledgerhook sync job');
    }
    const token = options.tokenFor(data.userId);
    if (!token) {
      emit({ type: 'no-token', userId: data.userId, entities: [data.entity], run });
      throw new UnrecoverableError('no access token for this user');
    }
    const { userId, entity } = data;
    const dataset = datasetOf(data);
    if (!reconcile) {
      // Spacing only saves work: a Redis that cannot say runs the job now, rather than spend an attempt.
      const waitMs = await edges.spacing(syncDedupeId(userId, dataset)).catch(() => 0);
      if (waitMs > 0) {
        await job.moveToDelayed(Date.now() + waitMs, lockToken);
        emit({ type: 'sync-spaced', userId, entity, dataset, run, retryInMs: waitMs });
        throw new DelayedError();
      }
    }
    emit({ type: 'sync-start', userId, entity, dataset, run, attempt: job.attemptsMade + 1 });
    try {
      const input = { job: data, token, dispatcher: edges.dispatcher, backoff: edges.backoffFor(tokenKey(token)) };
      if (reconcile && options.runReconcile) {
        const result = await options.runReconcile({ ...input, signal: stopping });
        emit({ type: 'reconcile-done', userId, entity, dataset, run, result });
        return undefined;
      }
      // The job was created by the first delivery of its burst (later ones coalesce into it).
      const summary = await options.runSync({
        ...input,
        signal: stopping,
        receivedAtMs: job.timestamp,
        telemetry: telemetry.enabled ? telemetry : undefined,
      });
      emit({ type: 'sync-done', userId, entity, run, summary });
      return summary;
    } catch (error) {
      if (stopping.aborted) {
        // Shutting down: the job goes back to the queue without using up an attempt.
        await job.moveToWait(lockToken);
        emit({ type: 'job-returned', userId, entity, run });
        throw new WaitingError();
      }
      if (error instanceof LedgerhookError && error.details.reason === 'dataset_busy') {
        // Another run of the dataset holds it (store/run-claim.ts): this job waits its turn, no attempt used,
        // at least the run spacing (the spacing window this try opened is over when it comes back).
        const waitMs = options.limits.runSpacingMs + backoffWait(1, options.retry);
        await job.moveToDelayed(Date.now() + waitMs, lockToken);
        emit({ type: 'dataset-busy', userId, entity, dataset, run, retryInMs: waitMs });
        throw new DelayedError();
      }
      const message = error instanceof Error ? error.message : String(error);
      if (isPermanent(error)) {
        emit({ type: 'sync-failed', userId, entity, dataset, run, error: message, willRetry: false });
        throw new UnrecoverableError(message);
      }
      // A delivery answered 2xx must be synced: a transient failure delays the job (no attempt used)
      // with capped exponential backoff, and records why for `queue status`.
      const retries = transientRetries(job) + 1;
      const waitMs = backoffWait(retries, options.retry);
      await job.updateData({
        ...job.data,
        retry: { count: retries, lastError: message.slice(0, 500), at: Date.now() },
      });
      await job.moveToDelayed(Date.now() + waitMs, lockToken);
      emit({
        type: 'sync-failed',
        userId,
        entity,
        dataset,
        run,
        error: message,
        willRetry: true,
        retries,
        retryInMs: waitMs,
      });
      throw new DelayedError();
    }
  };
}
