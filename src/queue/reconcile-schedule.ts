import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { entityAtPath, type EntityPaths } from '../catalogue/entity-paths.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { normaliseBaseUrl, parseDatasetKey } from '../store/identity.js';
import { datasetOf, type SyncJobData, syncDedupeId } from './sync-job.js';

/** The job that fans out one reconcile job per synced (user, dataset), on the schedule. */
export const RECONCILE_ALL_JOB_NAME = 'reconcile-all';
/** One (user, dataset) compared with the service and repaired. */
export const RECONCILE_JOB_NAME = 'reconcile';
/** One scheduler per queue: every worker upserts the same one, so N workers do not reconcile N times. */
const SCHEDULER_ID = 'ledgerhook-reconcile-every';

/** The datasets a store has synced from this server, as jobs (documents left out: nothing to compare). */
export async function reconcileJobs(store: DatasetStore, baseUrl: string, paths?: EntityPaths): Promise<SyncJobData[]> {
  const base = normaliseBaseUrl(baseUrl);
  const jobs: SyncJobData[] = [];
  for (const { ref } of await store.list()) {
    if (ref.baseUrl !== base || ref.userId === '') continue;
    const { path, filter } = parseDatasetKey(ref.dataset);
    const entity = entityAtPath(path, paths);
    if (!entity || entity.paginated === false) continue;
    jobs.push({
      userId: ref.userId,
      entity: entity.name,
      path,
      filter,
    });
  }
  return jobs;
}

/**
 * The reconcile schedule of a queue (worker --reconcile-every): a BullMQ job scheduler fires
 * reconcile-all every `everyMs`; whichever worker takes it enqueues one reconcile job per dataset,
 * deduplicated per (user, dataset) like sync jobs, so a slow round is never doubled.
 */
export class ReconcileSchedule {
  readonly #queue: Queue;

  private constructor(queue: Queue) {
    this.#queue = queue;
  }

  /**
   * The queue's schedule; with `everyMs`, set (or moved to) that period; with `'off'`, removed. A
   * worker without it leaves the schedule as it is and still fans out a reconcile-all it is handed:
   * the schedule belongs to the queue, not to one worker.
   */
  static async open(connection: Redis, queueName: string, everyMs?: number | 'off'): Promise<ReconcileSchedule> {
    const queue = new Queue(queueName, { connection });
    // Without a listener BullMQ prints each connection error with its stack; the worker reports them.
    queue.on('error', () => {});
    if (everyMs === 'off') await queue.removeJobScheduler(SCHEDULER_ID);
    else if (everyMs !== undefined)
      await queue.upsertJobScheduler(SCHEDULER_ID, { every: everyMs }, { name: RECONCILE_ALL_JOB_NAME, data: {} });
    return new ReconcileSchedule(queue);
  }

  /** The queue's period as it stands (set by this worker or an earlier one), or null when none is set. */
  async everyMs(): Promise<number | null> {
    const scheduler = await this.#queue.getJobScheduler(SCHEDULER_ID);
    return typeof scheduler?.every === 'number' ? scheduler.every : null;
  }

  /** Enqueues one reconcile job per dataset; returns how many were new (the others were already waiting). */
  async fanOut(jobs: readonly SyncJobData[], parent: Job): Promise<number> {
    let queued = 0;
    for (const [index, data] of jobs.entries()) {
      const jobId = `${parent.id ?? 'reconcile'}-${index}`;
      const job = await this.#queue.add(RECONCILE_JOB_NAME, data, {
        jobId,
        deduplication: { id: `reconcile:${syncDedupeId(data.userId, datasetOf(data))}` },
        removeOnComplete: { count: 1000, age: 3600 },
        removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
      });
      if (job.id === jobId) queued += 1;
    }
    return queued;
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
