import { Worker } from 'bullmq';
import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { SharedBackoff } from '../http/retry-policy.js';
import type { SyncSummary } from '../sync/sync-dataset.js';
import type { ReconcileCounts } from '../store/dataset-activity.js';
import { rateLimitedDispatcher } from './rate-limited-dispatcher.js';
import { connectRedis, ensureConnected } from './redis-connection.js';
import type { SyncJobData } from './sync-job.js';
import { jobProcessor } from './job-processor.js';
import { ReconcileSchedule } from './reconcile-schedule.js';
import { TokenRateGate } from './token-rate-gate.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { normalizeSyncWorkerOptions, type SyncWorkerOptions } from './sync-worker-options.js';
import { observeQueueDepth } from './queue-depth.js';
import { runSpacing } from './run-spacing.js';

export type { SyncWorkerOptions } from './sync-worker-options.js';

/** What one run reports (the fields `listen --sync` prints): a sync's summary less its dry-run flag. */
export type SyncRunSummary = Omit<SyncSummary, 'dryRun'>;

/** Runs one dataset's sync into the store: the worker's only link to the sync code (injected). */
export type RunSync = (input: {
  job: SyncJobData;
  token: string;
  dispatcher: Dispatcher;
  backoff: SharedBackoff;
  signal: AbortSignal;
  /** When the job was created: the receipt of the first delivery it answers. */
  receivedAtMs?: number | undefined;
  /** Scoped to the job's span: the run's spans are its children. */
  telemetry?: Telemetry | undefined;
}) => Promise<SyncRunSummary>;

/** What a worker's reconcile job reports: the counts, not every id (the store's activity keeps them). */
export interface ReconcileRunSummary extends ReconcileCounts {
  dataset: string;
  equal: boolean;
}

/** Reconciles one dataset of the store with the service, with repair (worker --reconcile-every). */
export type RunReconcile = (input: {
  job: SyncJobData;
  token: string;
  dispatcher: Dispatcher;
  backoff: SharedBackoff;
  signal: AbortSignal;
}) => Promise<ReconcileRunSummary>;

export type SyncWorkerEvent =
  | {
      type: 'worker-ready';
      queue: string;
      concurrency: number;
      /** The queue's reconcile period as it stands after this worker's start (null: none). */
      reconcileEveryMs: number | null;
    }
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
  /** Another run of the dataset holds it (on this worker or another): the job waits `retryInMs`. */
  | { type: 'dataset-busy'; userId: string; entity: string; dataset: string; run: string; retryInMs: number }
  /** The dataset's last run started less than the run spacing ago: the job (and every delivery joining it) waits `retryInMs`. */
  | { type: 'sync-spaced'; userId: string; entity: string; dataset: string; run: string; retryInMs: number }
  | { type: 'no-token'; userId: string; entities: string[]; run: string }
  | { type: 'reconcile-scheduled'; run: string; queued: number }
  | {
      type: 'reconcile-done';
      userId: string;
      entity: string;
      dataset: string;
      run: string;
      result: ReconcileRunSummary;
    }
  | { type: 'job-invalid'; run: string }
  | { type: 'job-returned'; userId: string; entity: string; run: string }
  | { type: 'stalled'; run: string }
  | { type: 'worker-error'; message: string };

export interface RunningSyncWorker {
  /**
   * Stops taking jobs and waits for the running ones; after `graceMs` the runs still going are
   * stopped and their jobs go back to the queue (their transactions roll back: nothing half-written).
   */
  close(graceMs?: number): Promise<void>;
}

/** The worker half of the queue: BullMQ jobs in, `runSync` per job, events out. */
export async function startSyncWorker(input: SyncWorkerOptions): Promise<RunningSyncWorker> {
  const options = normalizeSyncWorkerOptions(input);
  const { onEvent: emit, limits, telemetry } = options;
  // A worker's connection retries for ever (a Redis restart must not end it); one that cannot reach
  // Redis at all at start says so in one line instead, through a connection that gives up.
  const probe = connectRedis(options.url, 'producer');
  try {
    await ensureConnected(probe, options.url);
  } finally {
    probe.disconnect();
  }
  const redis = connectRedis(options.url, 'worker');
  const gate = await TokenRateGate.create(redis, options.queueName, limits.rateLimit);
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
  const schedule = options.reconcileJobs
    ? await ReconcileSchedule.open(redis, options.queueName, options.reconcileEveryMs)
    : undefined;
  const processor = jobProcessor(options, {
    emit,
    dispatcher,
    backoffFor,
    stopping: stopping.signal,
    spacing: (datasetId) => runSpacing(redis, options.queueName, datasetId, limits.runSpacingMs),
    fanOutReconcile: async (job) =>
      schedule && options.reconcileJobs ? schedule.fanOut(await options.reconcileJobs(), job) : 0,
  });

  const worker = new Worker(options.queueName, processor, {
    connection: redis,
    concurrency: limits.concurrency,
    lockDuration: limits.lockDurationMs,
    stalledInterval: limits.stalledIntervalMs,
    // A job whose worker died is run again this many times before it counts as failed.
    maxStalledCount: 3,
    removeOnComplete: { count: 1000, age: 3600 },
    removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
    autorun: false,
  });
  const stopObserving = telemetry.enabled ? observeQueueDepth(telemetry, redis, options.queueName) : undefined;
  worker.on('stalled', (jobId) => emit({ type: 'stalled', run: jobId }));
  worker.on('error', (error) => emit({ type: 'worker-error', message: error.message }));
  void worker.run().catch((error: Error) => emit({ type: 'worker-error', message: error.message }));
  await worker.waitUntilReady();
  emit({
    type: 'worker-ready',
    queue: options.queueName,
    concurrency: limits.concurrency,
    reconcileEveryMs: schedule ? await schedule.everyMs() : null,
  });

  return {
    async close(graceMs = 10_000) {
      const timer = setTimeout(() => stopping.abort(new LedgerhookError('ERR_ABORTED', 'stopped')), graceMs);
      timer.unref();
      try {
        await worker.close();
      } finally {
        clearTimeout(timer);
        stopping.abort(new LedgerhookError('ERR_ABORTED', 'stopped'));
        await stopObserving?.().catch(() => {});
        await dispatcher.close().catch(() => {});
        await schedule?.close().catch(() => {});
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
