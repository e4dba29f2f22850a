/**
 * queue/: the scale path on BullMQ and Redis.
 *   sync-queue.ts        the producer: one deduplicated job per (user, dataset) (this file);
 *                        enqueue-batch.ts the jobs of deliveries served together in one pipeline
 *   sync-worker.ts       the worker; job-processor.ts runs a job, store-sync.ts syncs it into the store
 *   token-rate-gate.ts   the per-token rate limit every worker shares, and its 429 pause
 *                        (rate-limited-dispatcher.ts puts it in front of every request)
 *   reconcile-schedule.ts one job scheduler, fanned out per dataset
 *   queue-status.ts, queue-depth.ts, queue-retry.ts  `queue status`, the depth gauge, `queue retry`
 *                        (queue-session.ts: a queue opened for one such command)
 */
import { checkEntityPaths, type EntityPaths } from '../catalogue/entity-paths.js';
import { randomUUID } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { EnqueueBatch } from './enqueue-batch.js';
import { connectRedis, ensureConnected, queueUnreachable } from './redis-connection.js';
import { datasetOf, isQueueableUser, SYNC_JOB_NAME, syncDedupeId, syncJobFor, type SyncJobData } from './sync-job.js';

export interface SyncQueueOptions {
  /** redis://host:port */
  url: string;
  queueName: string;
  /** BullMQ attempts of a job before it stays failed. */
  attempts?: number | undefined;
  /** First retry delay in ms; doubles on each attempt. */
  backoffMs?: number | undefined;
  /** How long an enqueue may wait for Redis before the delivery is refused (503): 5 s. */
  enqueueTimeoutMs?: number | undefined;
  /** List paths that replace the catalogue's for some entities; workers must be given the same. */
  paths?: EntityPaths | undefined;
}

export type EnqueueOutcome =
  | { userId: string; entity: string; dataset: string; outcome: 'queued' | 'coalesced'; jobId: string }
  | { userId: string; entity: string; outcome: 'unknown-entity' }
  /** A userId that cannot name a user ('' or longer than a job may carry): not queued. */
  | { userId: string; entity: string; outcome: 'invalid-user' };

/**
 * The producer half: one job per (user, dataset), deduplicated across every receiver and worker
 * with BullMQ's `deduplication: { id, keepLastIfActive: true }`: at most one job of a dataset
 * runs and at most one waits, so a burst of webhooks collapses into one follow-up run.
 */
export class SyncQueue {
  readonly #queue: Queue;
  readonly #redis: Redis;
  readonly #url: string;
  readonly #jobOptions: JobsOptions;
  readonly #timeoutMs: number;
  readonly #paths: EntityPaths;
  readonly #batch: EnqueueBatch;

  constructor(options: SyncQueueOptions) {
    this.#paths = checkEntityPaths(options.paths);
    this.#url = options.url;
    this.#timeoutMs = options.enqueueTimeoutMs ?? 5000;
    this.#redis = connectRedis(options.url, 'producer');
    this.#queue = new Queue(options.queueName, { connection: this.#redis });
    this.#queue.on('error', () => {});
    this.#batch = new EnqueueBatch((jobs) => this.#queue.addBulk(jobs));
    this.#jobOptions = {
      attempts: options.attempts ?? 5,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 2000 },
      // Finished jobs are kept only as a short history: Redis memory stays bounded.
      removeOnComplete: { count: 1000, age: 3600 },
      removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
    };
  }

  get queue(): Queue {
    return this.#queue;
  }

  /** Fails fast with one neutral line when Redis cannot be reached. */
  async connect(): Promise<void> {
    await ensureConnected(this.#redis, this.#url);
  }

  /**
   * Enqueues the datasets of one ENTITY_UPDATE; resolves once every job is in Redis (the caller
   * answers the webhook only then) and rejects when Redis did not take them.
   */
  async enqueueEntities(
    userId: string,
    entities: readonly string[],
    deliveryId?: string,
    /** The delivery's trace (W3C traceparent), for the worker's job span to continue. */
    traceparent?: string,
  ): Promise<EnqueueOutcome[]> {
    const outcomes: EnqueueOutcome[] = [];
    const jobs: SyncJobData[] = [];
    if (!isQueueableUser(userId))
      return [...new Set(entities)].map((entity) => ({ userId, entity, outcome: 'invalid-user' as const }));
    for (const name of new Set(entities)) {
      const job = syncJobFor(userId, name, this.#paths);
      if (job)
        jobs.push({
          ...job,
          ...(deliveryId === undefined ? {} : { deliveryId }),
          ...(traceparent === undefined ? {} : { traceparent }),
        });
      else outcomes.push({ userId, entity: name, outcome: 'unknown-entity' });
    }
    const added = await this.#add(jobs);
    return [...added, ...outcomes];
  }

  async enqueue(data: SyncJobData): Promise<EnqueueOutcome> {
    const [outcome] = await this.#add([data]);
    return outcome as EnqueueOutcome;
  }

  /**
   * Jobs into Redis, each deduplicated by its dataset (a job BullMQ answers with another id joined
   * one already there), batched with those of the deliveries served at the same time (enqueue-batch.ts).
   */
  async #add(jobs: readonly SyncJobData[]): Promise<EnqueueOutcome[]> {
    if (jobs.length === 0) return [];
    // Our own job ids: when BullMQ answers with another, the request joined an existing job.
    const ids: string[] = jobs.map(() => randomUUID());
    try {
      // BullMQ waits for a connection that may never come: a receiver must answer, so the wait is bounded.
      const added = await withTimeout(
        this.#batch.add(
          jobs.map((data, index) => ({
            name: SYNC_JOB_NAME,
            data,
            opts: {
              ...this.#jobOptions,
              jobId: ids[index] as string,
              deduplication: { id: syncDedupeId(data.userId, datasetOf(data)), keepLastIfActive: true },
            },
          })),
        ),
        this.#timeoutMs,
      );
      return jobs.map((data, index) => ({
        userId: data.userId,
        entity: data.entity,
        dataset: datasetOf(data),
        outcome: added[index] === ids[index] ? ('queued' as const) : ('coalesced' as const),
        jobId: added[index] ?? (ids[index] as string),
      }));
    } catch (error) {
      throw queueUnreachable(error, this.#url, this.#redis);
    }
  }

  async close(): Promise<void> {
    await this.#queue.close().catch(() => {});
    this.#redis.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  promise.catch(() => {}); // a late failure after the timeout is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
