import { withQueue } from './queue-session.js';

/**
 * Re-queues the jobs that ended `failed` (a permanent failure, since fixed: a token replaced, a path
 * set), at most `limit` of them, oldest first. Retrying jobs need nothing: they retry on their own.
 */
export async function retryFailedJobs(options: {
  url: string;
  queueName: string;
  limit?: number | undefined;
}): Promise<{ requeued: string[]; failedLeft: number }> {
  return withQueue(options, async (queue) => {
    const jobs = await queue.getJobs('failed', 0, (options.limit ?? 10_000) - 1, true);
    const requeued: string[] = [];
    for (const job of jobs) {
      if (!job) continue;
      await job.retry('failed');
      requeued.push(String(job.id));
    }
    const failedLeft = (await queue.getJobCounts('failed')).failed ?? 0;
    return { requeued, failedLeft };
  });
}
