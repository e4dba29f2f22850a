import { withQueue } from './queue-session.js';
import { parseSyncJobData } from './sync-job.js';

export interface QueueStatus {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  /** Jobs not yet finished (waiting, delayed, active) per user, largest first. */
  backlog: Array<{ userId: string; waiting: number; active: number; delayed: number }>;
  /** True when the backlog was counted from the first `backlogLimit` jobs only. */
  backlogPartial: boolean;
  /** Delayed jobs retrying after a transient failure (store or service unreachable...), with the last error. */
  retrying: Array<{ jobId: string; userId: string; entity: string; retries: number; lastError: string }>;
}

/** Counts and a per-user backlog, read from Redis; bounded however long the queue is. */
export async function queueStatus(options: {
  url: string;
  queueName: string;
  backlogLimit?: number | undefined;
}): Promise<QueueStatus> {
  return withQueue(options, async (queue) => {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
    const limit = options.backlogLimit ?? 10_000;
    const byUser = new Map<string, { userId: string; waiting: number; active: number; delayed: number }>();
    let seen = 0;
    const retrying: QueueStatus['retrying'] = [];
    for (const state of ['waiting', 'active', 'delayed'] as const) {
      const jobs = await queue.getJobs(state, 0, Math.max(0, limit - seen - 1));
      seen += jobs.length;
      for (const job of jobs) {
        const data = parseSyncJobData(job?.data);
        const userId = data?.userId ?? '(invalid job)';
        const retry = (job?.data as { retry?: { count?: unknown; lastError?: unknown } } | undefined)?.retry;
        if (state === 'delayed' && data && typeof retry?.count === 'number')
          retrying.push({
            jobId: String(job?.id ?? '?'),
            userId: data.userId,
            entity: data.entity,
            retries: retry.count,
            lastError: typeof retry.lastError === 'string' ? retry.lastError : '',
          });
        const entry = byUser.get(userId) ?? { userId, waiting: 0, active: 0, delayed: 0 };
        entry[state] += 1;
        byUser.set(userId, entry);
      }
    }
    const total = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0);
    return {
      queue: options.queueName,
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
      backlog: [...byUser.values()].sort(
        (a, b) =>
          b.waiting + b.active + b.delayed - (a.waiting + a.active + a.delayed) || (a.userId < b.userId ? -1 : 1),
      ),
      backlogPartial: total > seen,
      retrying,
    };
  });
}
