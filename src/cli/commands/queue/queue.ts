import { queueStatus } from '../../../queue/queue-status.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { QueueCommandOptions } from './definition.js';
import { resolveQueue } from '../../resolve-scale.js';
import { printable } from '../../render-delivery.js';
import { table } from '../../table.js';

export async function run(options: QueueCommandOptions, ctx: CliContext): Promise<void> {
  const target = resolveQueue(options, ctx);
  if (options.action === 'retry') {
    const { retryFailedJobs } = await import('../../../queue/queue-retry.js');
    const result = await retryFailedJobs(target);
    if (options.json) writeJson(ctx, { ok: true, ...result });
    else
      writeLine(
        ctx.stdout,
        `${result.requeued.length} failed ${result.requeued.length === 1 ? 'job' : 'jobs'} put back in ${target.queueName}${result.failedLeft > 0 ? ` (${result.failedLeft} still failed)` : ''}`,
      );
    return;
  }
  const status = await queueStatus(target);
  if (options.json) {
    writeJson(ctx, status);
    return;
  }
  writeLine(
    ctx.stdout,
    `${ctx.color.bold(status.queue)}: ${status.waiting} waiting, ${status.active} active, ${status.delayed} delayed (retrying), ${status.failed} failed, ${status.completed} completed (recent)`,
  );
  for (const job of status.retrying.slice(0, 20))
    writeLine(
      ctx.stdout,
      `${ctx.color.yellow('retrying')} ${job.entity} for ${JSON.stringify(job.userId)} (job ${JSON.stringify(job.jobId)}, ${job.retries} ${job.retries === 1 ? 'retry' : 'retries'}): ${printable(job.lastError)}`,
    );
  if (status.backlog.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim('no backlog: every queued dataset is synced'));
    return;
  }
  writeLine(
    ctx.stdout,
    table(
      ['user', 'waiting', 'active', 'delayed'],
      // A userId comes from a webhook: printed as JSON so that control characters cannot reach the terminal.
      status.backlog
        .slice(0, 50)
        .map((entry) => [
          JSON.stringify(entry.userId),
          String(entry.waiting),
          String(entry.active),
          String(entry.delayed),
        ]),
      ctx.color.bold,
    ),
  );
  if (status.backlog.length > 50 || status.backlogPartial)
    writeLine(ctx.stdout, ctx.color.dim('(largest backlogs shown; --json gives every user counted)'));
}
