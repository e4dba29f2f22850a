import { usageError } from '../../../errors.js';
import { checkTokenFlags, resolveTokenFor } from '../../token-map.js';
import type { SyncWorkerEvent } from '../../../queue/sync-worker.js';
import type { CliContext } from '../../context.js';
import { jsonLine, markJsonLines } from '../../json-output.js';
import { printable, quoted } from '../../render-delivery.js';
import { syncDoneLine } from '../../sync-done-line.js';
import type { WorkerCommandOptions } from './definition.js';
import { resolveBaseUrl } from '../../resolve-dataset.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import { resolveQueue, resolveStoreUrl } from '../../resolve-scale.js';
import { resolveReadSettings } from '../../resolve-service-settings.js';
import { batchedLineWriter } from '../../batched-lines.js';
import { formatDuration } from '../../durations.js';
import { resolveTelemetry } from '../../telemetry-flag.js';

/** One human line per worker event, in the words `listen --sync` uses. */
function eventLine(event: SyncWorkerEvent, ctx: CliContext): string | undefined {
  const c = ctx.color;
  // userIds come from webhooks: quoted so that no control character reaches the terminal.
  const user = quoted;
  switch (event.type) {
    case 'worker-ready':
      return `${c.bold('worker ready')} on queue ${event.queue}, ${event.concurrency} jobs at once${event.reconcileEveryMs === null ? '' : `, reconciling every ${formatDuration(event.reconcileEveryMs)}`} ${c.dim('(Ctrl-C or SIGTERM to stop)')}`;
    case 'sync-start':
      return c.dim(
        `  ↻ syncing ${event.dataset} for ${user(event.userId)} (job ${event.run}, attempt ${event.attempt})`,
      );
    case 'sync-done':
      return syncDoneLine(event.summary, event.userId, c);
    case 'sync-failed':
      return `  ${c.red('✖')} ${event.dataset} for ${user(event.userId)}: ${printable(event.error)}${event.retryInMs !== undefined ? ` (transient: retry ${event.retries} in ${Math.round(event.retryInMs / 1000)} s)` : event.willRetry ? ' (will retry)' : ''}`;
    case 'dataset-busy':
      return c.dim(
        `  ⧗ ${event.dataset} for ${user(event.userId)} is being synced by another run: job ${event.run} waits ${formatDuration(event.retryInMs)}`,
      );
    case 'sync-spaced':
      return c.dim(
        `  ⧗ ${event.dataset} for ${user(event.userId)} was read moments ago: job ${event.run} and the deliveries joining it wait ${formatDuration(event.retryInMs)}`,
      );
    case 'no-token':
      return c.yellow(`  ! no access token for ${user(event.userId)}: ${event.entities.join(', ')} not synced`);
    case 'job-invalid':
      return c.yellow(`  ! job ${event.run} is not a ledgerhook sync job: failed without running`);
    case 'job-returned':
      return c.dim(`  ↩ job ${event.run} (${event.entity} for ${user(event.userId)}) put back in the queue`);
    case 'stalled':
      return c.yellow(`  ! job ${event.run} lost its worker: queued again`);
    case 'worker-error':
      return c.red(`  ! ${event.message}`);
    case 'reconcile-scheduled':
      return c.dim(`  ⧖ reconcile: ${event.queued} dataset${event.queued === 1 ? '' : 's'} queued (job ${event.run})`);
    case 'reconcile-done': {
      const r = event.result;
      const difference = `${r.missing} missing, ${r.extra} extra, ${r.different} different${r.repaired ? ', repaired' : ''}`;
      return `  ${r.equal ? c.green('✔') : c.yellow('≠')} reconcile ${r.dataset} for ${user(event.userId)}: ${r.equal ? `equal (${r.serverItems} items)` : difference}`;
    }
  }
}

export async function run(options: WorkerCommandOptions, ctx: CliContext): Promise<void> {
  // JSON Lines: one event per line, each with kind and time; a failure ends the stream with an error line.
  if (options.json) markJsonLines(ctx);
  // Ctrl-C is handled from the start: a signal that comes right after the first line must not kill the process.
  const { signal: stopped } = ctx;
  if (stopped.aborted) return;
  const target = resolveQueue(options, ctx);
  const storeUrl = resolveStoreUrl(options, ctx);
  if (!storeUrl) throw usageError('no store: pass --store postgres://... or set LEDGERHOOK_STORE', 'missing_store');
  checkTokenFlags(options);
  const baseUrl = await resolveBaseUrl(options, ctx);
  if (baseUrl === undefined)
    throw usageError('no base URL: pass --base-url or set LEDGERHOOK_BASE_URL', 'missing_base_url');
  // The rate is off unless set: the spec shows no rate limit; one is the user's own knowledge (or probe's finding).
  const { rateLimit, limit, lagMs, maxStampAheadMs, expiredCursorStatuses } = await resolveReadSettings(options, ctx);
  const telemetry = await resolveTelemetry(options, ctx);
  const paths = await resolveEntityPaths(options, ctx);
  const tokenFor = await resolveTokenFor(options, ctx);
  const [{ startSyncWorker }, { PostgresStore }, { storeReconcile, storeSync }, { reconcileJobs }] = await Promise.all([
    import('../../../queue/sync-worker.js'),
    import('../../../store/postgres/postgres-store.js'),
    import('../../../queue/store-sync.js'),
    import('../../../queue/reconcile-schedule.js'),
  ]);
  const store = new PostgresStore({ url: storeUrl, maxConnections: options.concurrency + 1 });
  await store.migrate();
  const out = batchedLineWriter(ctx.stdout);
  const counts = { done: 0, failed: 0, returned: 0 };
  const worker = await startSyncWorker({
    ...target,
    tokenFor,
    limits: {
      concurrency: options.concurrency,
      rateLimit,
      lockDurationMs: Math.round(options.lockSeconds * 1000),
      stalledIntervalMs: Math.max(1000, Math.round((options.lockSeconds * 1000) / 2)),
      runSpacingMs: Math.round(options.runSpacing * 1000),
    },
    paths,
    runSync: storeSync({
      store,
      baseUrl,
      limit,
      lagMs,
      maxStampAheadMs,
      paths,
      keepDeleted: options.keepDeleted,
      expiredCursorStatuses,
    }),
    runReconcile: storeReconcile({ store, baseUrl, limit, maxStampAheadMs, paths, keepDeleted: options.keepDeleted }),
    reconcileEveryMs: options.reconcileEvery,
    reconcileJobs: () => reconcileJobs(store, baseUrl, paths),
    telemetry,
    onEvent: (event) => {
      if (event.type === 'sync-done') counts.done += 1;
      else if (event.type === 'sync-failed') counts.failed += 1;
      else if (event.type === 'job-returned') counts.returned += 1;
      if (options.json) {
        // Shaped like listen --sync's lines: a run's summary fields sit beside kind, userId and entity.
        const { type, ...rest } = event;
        const fields =
          event.type === 'sync-done'
            ? { ...rest, summary: undefined, ...event.summary }
            : event.type === 'reconcile-done'
              ? { ...rest, result: undefined, ...event.result }
              : rest;
        out.write(jsonLine(type, fields));
        if (type === 'worker-ready') out.flush();
      } else {
        const line = eventLine(event, ctx);
        if (line) out.write(line);
        if (event.type === 'worker-ready') out.flush();
      }
    },
  });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await worker.close(Math.round(options.shutdownGrace * 1000));
  await store.close();
  await telemetry?.flush();
  if (options.json) out.write(jsonLine('summary', counts));
  else
    out.write(`\nstopped: ${counts.done} runs done, ${counts.failed} failed, ${counts.returned} put back in the queue`);
  out.flush();
}
