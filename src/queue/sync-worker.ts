import type { EntityPaths } from '../catalogue/entity-paths.js';
import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { SharedBackoff } from '../http/retry-policy.js';
import { isTransientFailure } from '../sync/transient.js';
import { transientWait } from '../util/backoff.js';
import type { SyncSummary } from '../sync/sync-dataset.js';
import { rateLimitedDispatcher } from './rate-limited-dispatcher.js';
import { connectRedis } from './redis-connection.js';
import { datasetOf, parseSyncJobData, SYNC_JOB_NAME, tokenKey, type SyncJobData } from './sync-job.js';
import { TokenRateGate, type TokenRateLimit } from './token-rate-gate.js';

/** What one run reports (the fields `listen --sync` prints): a sync's summary less its dry-run flag. */
export type SyncRunSummary = Omit<SyncSummary, 'dryRun'>;

/** Runs one dataset's sync into the store: the worker's only link to the sync code (injected). */
export type RunSync = (input: {
  job: SyncJobData;
  token: string;
  dispatcher: Dispatcher;
  backoff: SharedBackoff;
  signal: AbortSignal;
}) => Promise<SyncRunSummary>;

export type SyncWorkerEvent =
  | { type: 'worker-ready'; queue: string; concurrency: number }
  | { type: 'sync-start'; userId: string; entity: string; dataset: string; run: string; attempt: number }
  | { type: 'sync-done'; userId: string; entity: string; run: string; summary: SyncRunSummary }
  | {
      type: 'sync-failed';
      userId: string;
      entity: string;
      dataset: string;
      run: string;
      error: string;
      willRetry: boolean;
      /** For a transient failure: how many times it has been retried so far, and the next wait. */
      retries?: number | undefined;
      retryInMs?: number | undefined;
    }
  | { type: 'no-token'; userId: string; entities: string[]; run: string }
  | { type: 'job-invalid'; run: string }
  | { type: 'job-returned'; userId: string; entity: string; run: string }
  | { type: 'stalled'; run: string }
  | { type: 'worker-error'; message: string };

export interface SyncWorkerOptions {
  url: string;
  queueName: string;
  concurrency?: number | undefined;
  tokenFor: (userId: string) => string | undefined;
  runSync: RunSync;
  /**
   * List paths that replace the catalogue's for some entities (as given to the producer): a job may
   * name its entity's catalogue path or this path, and the worker requests this one.
   */
  paths?: EntityPaths | undefined;
  rateLimit?: TokenRateLimit | undefined;
  /** How long a job's lock lasts without renewal: how soon a dead worker's job runs again. */
  lockDurationMs?: number | undefined;
  /** How often this worker looks for jobs of dead workers. */
  stalledIntervalMs?: number | undefined;
  /**
   * Transient failures (store or service unreachable, 5xx, 429, timeouts) never use up a job: it is
   * retried after firstMs, doubling up to capMs, for as long as it takes (default 2 s up to 60 s).
   */
  transientRetry?: { firstMs?: number | undefined; capMs?: number | undefined } | undefined;
  onEvent?: ((event: SyncWorkerEvent) => void) | undefined;
}

export interface RunningSyncWorker {
  /**
   * Stops taking jobs and waits for the running ones; after `graceMs` the runs still going are
   * stopped and their jobs go back to the queue (their transactions roll back: nothing half-written).
   */
  close(graceMs?: number): Promise<void>;
}

/** A 401/403/404 or refused data will not heal by retrying: the job fails at once (sync/transient.ts). */
const isPermanent = (error: unknown) => !isTransientFailure(error);

interface ProcessorEdges {
  emit: (event: SyncWorkerEvent) => void;
  dispatcher: Dispatcher;
  backoffFor: (tokenKey: string) => SharedBackoff;
  stopping: AbortSignal;
}

/** One job: checked (Redis data is input like any other), run, and reported. */
function jobProcessor(options: SyncWorkerOptions, edges: ProcessorEdges) {
  const { emit, stopping } = edges;
  return async (job: Job, lockToken?: string): Promise<SyncRunSummary> => {
    if (stopping.aborted) {
      // A closing worker can still be handed a job: a slot that was waiting for one when the
      // shutdown began takes the job another slot has just put back. It goes back unrun (running
      // it would wait on a signal that has already fired, and close() would never return).
      await job.moveToWait(lockToken);
      throw new WaitingError();
    }
    const run = job.id ?? '?';
    const data = parseSyncJobData(job.data, options.paths);
    if (job.name !== SYNC_JOB_NAME || !data) {
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
    emit({ type: 'sync-start', userId, entity, dataset, run, attempt: job.attemptsMade + 1 });
    try {
      const backoff = edges.backoffFor(tokenKey(token));
      const summary = await options.runSync({
        job: data,
        token,
        dispatcher: edges.dispatcher,
        backoff,
        signal: stopping,
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
      const message = error instanceof Error ? error.message : String(error);
      if (isPermanent(error)) {
        emit({ type: 'sync-failed', userId, entity, dataset, run, error: message, willRetry: false });
        throw new UnrecoverableError(message);
      }
      // A delivery answered 2xx must be synced: a transient failure delays the job (no attempt used)
      // with capped exponential backoff, and records why for `queue status`.
      const retries = transientRetries(job) + 1;
      const waitMs = transientWait(retries, options.transientRetry);
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

/** How often a job has been retried for transient failures (recorded in its data, read back as input). */
function transientRetries(job: Job): number {
  const retry = (job.data as { retry?: { count?: unknown } } | undefined)?.retry;
  return typeof retry?.count === 'number' && Number.isSafeInteger(retry.count) && retry.count >= 0 ? retry.count : 0;
}

/** The worker half of issue #13: BullMQ jobs in, `runSync` per job, events out. */
export async function startSyncWorker(options: SyncWorkerOptions): Promise<RunningSyncWorker> {
  const emit = (event: SyncWorkerEvent) => options.onEvent?.(event);
  const redis = connectRedis(options.url, 'worker');
  const gate = await TokenRateGate.create(redis, options.queueName, options.rateLimit);
  const stopping = new AbortController();
  const dispatcher = rateLimitedDispatcher(gate, stopping.signal);
  const backoffs = new Map<string, SharedBackoff>();
  // The 429 pause of a token, shared with every worker through Redis.
  const backoffFor = (key: string) => {
    let backoff = backoffs.get(key);
    if (!backoff) {
      backoff = new RedisSharedBackoff(gate, key);
      backoffs.set(key, backoff);
    }
    return backoff;
  };
  const processor = jobProcessor(options, { emit, dispatcher, backoffFor, stopping: stopping.signal });

  const worker = new Worker(options.queueName, processor, {
    connection: redis,
    concurrency: options.concurrency ?? 4,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    // A job whose worker died is run again this many times before it counts as failed.
    maxStalledCount: 3,
    removeOnComplete: { count: 1000, age: 3600 },
    removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
    autorun: false,
  });
  worker.on('stalled', (jobId) => emit({ type: 'stalled', run: jobId }));
  worker.on('error', (error) => emit({ type: 'worker-error', message: error.message }));
  void worker.run().catch((error: Error) => emit({ type: 'worker-error', message: error.message }));
  await worker.waitUntilReady();
  emit({ type: 'worker-ready', queue: options.queueName, concurrency: options.concurrency ?? 4 });

  return {
    async close(graceMs = 10_000) {
      const timer = setTimeout(() => stopping.abort(new LedgerhookError('ERR_ABORTED', 'stopped')), graceMs);
      timer.unref();
      try {
        await worker.close();
      } finally {
        clearTimeout(timer);
        stopping.abort(new LedgerhookError('ERR_ABORTED', 'stopped'));
        await dispatcher.close().catch(() => {});
        redis.disconnect();
      }
    },
  };
}

/** SharedBackoff whose pause (from a 429's Retry-After) also pauses the token in every other worker. */
class RedisSharedBackoff extends SharedBackoff {
  readonly #gate: TokenRateGate;
  readonly #key: string;

  constructor(gate: TokenRateGate, key: string) {
    super();
    this.#gate = gate;
    this.#key = key;
  }

  override pauseUntil(time: number): void {
    super.pauseUntil(time);
    void this.#gate.pause(this.#key, time - Date.now()).catch(() => {});
  }
}
