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
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { EnqueueBatch, type EnqueuedJob } from './enqueue-batch.js';
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

/** A (user, dataset)'s job as every delivery naming it asks for it. */
interface JobTemplate {
  data: SyncJobData;
  dataset: string;
  dedupeId: string;
}

/** How many (user, entity) jobs a receiver keeps worked out. */
const MAX_TEMPLATES = 1000;

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
  readonly #templates = new Map<string, JobTemplate>();

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
    if (!isQueueableUser(userId))
      return [...new Set(entities)].map((entity) => ({ userId, entity, outcome: 'invalid-user' as const }));
    const outcomes: EnqueueOutcome[] = [];
    const jobs: JobTemplate[] = [];
    const extra =
      deliveryId === undefined && traceparent === undefined
        ? undefined
        : {
            ...(deliveryId === undefined ? {} : { deliveryId }),
            ...(traceparent === undefined ? {} : { traceparent }),
          };
    for (const name of new Set(entities)) {
      const template = this.#templateFor(userId, name);
      if (template) jobs.push(template);
      else outcomes.push({ userId, entity: name, outcome: 'unknown-entity' });
    }
    const added = await this.#add(jobs, extra);
    return [...added, ...outcomes];
  }

  async enqueue(data: SyncJobData): Promise<EnqueueOutcome> {
    const dataset = datasetOf(data);
    const [outcome] = await this.#add([{ data, dataset, dedupeId: syncDedupeId(data.userId, dataset) }]);
    return outcome as EnqueueOutcome;
  }

  /**
   * The job of one (user, entity), worked out once: a burst of webhooks names the same few again
   * and again. Bounded, and only entities of the catalogue are kept (any name a sender makes up
   * would otherwise take the room, and its memory).
   */
  #templateFor(userId: string, entity: string): JobTemplate | undefined {
    // Length-prefixed: no userId and entity name pair shares a key with another.
    const key = `${userId.length}:${userId}${entity}`;
    const kept = this.#templates.get(key);
    if (kept) return kept;
    const data = syncJobFor(userId, entity, this.#paths);
    if (!data) return undefined;
    const dataset = datasetOf(data);
    const template = { data, dataset, dedupeId: syncDedupeId(userId, dataset) };
    if (this.#templates.size >= MAX_TEMPLATES) this.#templates.delete(this.#templates.keys().next().value as string);
    this.#templates.set(key, template);
    return template;
  }

  /**
   * Jobs into Redis, each deduplicated by its dataset (a job BullMQ answers with another id joined
   * one already there), batched with those of the deliveries served at the same time (enqueue-batch.ts).
   */
  async #add(jobs: readonly JobTemplate[], extra?: Partial<SyncJobData>): Promise<EnqueueOutcome[]> {
    if (jobs.length === 0) return [];
    const jobOptions = this.#jobOptions;
    try {
      // BullMQ waits for a connection that may never come: a receiver must answer, so the wait is bounded.
      const added = await withTimeout(
        this.#batch.add(
          jobs.map(({ data, dedupeId }) => ({
            dedupeId,
            build: (jobId: string) => ({
              name: SYNC_JOB_NAME,
              data: extra ? { ...data, ...extra } : data,
              opts: { ...jobOptions, jobId, deduplication: { id: dedupeId, keepLastIfActive: true } },
            }),
          })),
        ),
        this.#timeoutMs,
      );
      return jobs.map(({ data, dataset }, index) => {
        const job = added[index] as EnqueuedJob;
        return {
          userId: data.userId,
          entity: data.entity,
          dataset,
          outcome: job.queued ? ('queued' as const) : ('coalesced' as const),
          jobId: job.id,
        };
      });
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
