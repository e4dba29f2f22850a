import type { EntityPaths } from '../catalogue/entity-paths.js';
import { DEFAULT_RUN_SPACING_MS } from '../defaults.js';
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';
import type { BackoffSchedule } from '../util/backoff.js';
import type { SyncJobData } from './sync-job.js';
import type { RunReconcile, RunSync, SyncWorkerEvent } from './sync-worker.js';
import type { TokenRateLimit } from './token-rate-gate.js';

export interface SyncWorkerOptions {
  url: string;
  queueName: string;
  tokenFor: (userId: string) => string | undefined;
  runSync: RunSync;
  /** Runs reconcile jobs; without it they fail as not runnable here. */
  runReconcile?: RunReconcile | undefined;
  /**
   * Reconcile every synced dataset this often (a BullMQ job scheduler shared by every worker of the
   * queue); `reconcileJobs` lists them (reconcile-schedule.ts). `'off'` removes the queue's
   * schedule; undefined leaves it as an earlier worker set it.
   */
  reconcileEveryMs?: number | 'off' | undefined;
  reconcileJobs?: (() => Promise<SyncJobData[]>) | undefined;
  /**
   * List paths that replace the catalogue's for some entities (as given to the producer): a job may
   * name its entity's catalogue path or this path, and the worker requests this one.
   */
  paths?: EntityPaths | undefined;
  /** How much this worker takes on, and how soon a dead worker's jobs run again. */
  limits?:
    | {
        /** Jobs run at once by this worker; default 4. */
        concurrency?: number | undefined;
        rateLimit?: TokenRateLimit | undefined;
        /** How long a job's lock lasts without renewal: how soon a dead worker's job runs again. */
        lockDurationMs?: number | undefined;
        /** How often this worker looks for jobs of dead workers. */
        stalledIntervalMs?: number | undefined;
        /**
         * At least this long between the starts of two sync runs of one dataset, across every
         * worker (run-spacing.ts): a burst of webhooks becomes a run at once and one a moment later,
         * not runs back to back. Default DEFAULT_RUN_SPACING_MS (defaults.ts); 0 runs them back to
         * back. Reconcile runs are not spaced.
         */
        runSpacingMs?: number | undefined;
      }
    | undefined;
  /**
   * Transient failures (store or service unreachable, 5xx, 429, timeouts) never use up a job: it is
   * retried after a wait below firstMs, doubling up to capMs (util/backoff.ts), for as long as it takes
   * (default 2 s up to 60 s).
   */
  retry?: BackoffSchedule | undefined;
  onEvent?: ((event: SyncWorkerEvent) => void) | undefined;
  /**
   * Traces and metrics (openTelemetry()): a span per job (continuing the delivery's trace when the
   * job carries it) with the sync's spans under it, and the queue's depth as a gauge; default none.
   */
  telemetry?: Telemetry | undefined;
}

/** startSyncWorker's options with every default applied. */
export interface ResolvedSyncWorkerOptions
  extends Pick<
    SyncWorkerOptions,
    'url' | 'queueName' | 'tokenFor' | 'runSync' | 'runReconcile' | 'reconcileEveryMs' | 'reconcileJobs' | 'paths'
  > {
  limits: {
    concurrency: number;
    rateLimit: TokenRateLimit | undefined;
    lockDurationMs: number;
    stalledIntervalMs: number;
    runSpacingMs: number;
  };
  /** The back-off's own defaults (util/backoff.ts) fill what is not given. */
  retry: BackoffSchedule;
  onEvent: (event: SyncWorkerEvent) => void;
  telemetry: Telemetry;
}

export function normalizeSyncWorkerOptions(options: SyncWorkerOptions): ResolvedSyncWorkerOptions {
  const { limits = {}, onEvent } = options;
  return {
    url: options.url,
    queueName: options.queueName,
    tokenFor: options.tokenFor,
    runSync: options.runSync,
    runReconcile: options.runReconcile,
    reconcileEveryMs: options.reconcileEveryMs,
    reconcileJobs: options.reconcileJobs,
    paths: options.paths,
    limits: {
      concurrency: limits.concurrency ?? 4,
      rateLimit: limits.rateLimit,
      lockDurationMs: limits.lockDurationMs ?? 30_000,
      stalledIntervalMs: limits.stalledIntervalMs ?? 30_000,
      runSpacingMs: limits.runSpacingMs ?? DEFAULT_RUN_SPACING_MS,
    },
    retry: options.retry ?? {},
    onEvent: (event) => onEvent?.(event),
    telemetry: options.telemetry ?? noTelemetry,
  };
}
