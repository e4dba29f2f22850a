import { ENTITIES } from '@ledgerhook/webhooks';
import { entityPath } from '../../../catalogue/entity-paths.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import { usageError } from '../../../errors.js';
import type { DatasetStore } from '../../../store/dataset-store.js';
import type { SyncDatasetOptions } from '../../../sync/sync-dataset.js';
import { type DatasetOutcome, type SyncOutcome, syncDatasets } from '../../../sync/sync-many.js';
import type { ReconcileResult } from '../../../sync/reconcile.js';
import { renderReconcile } from '../reconcile/render-reconcile.js';
import { watchDatasets } from '../../../sync/sync-watch.js';
import { type CliContext, writeLine } from '../../context.js';
import type { SyncCommandOptions } from './definition.js';
import { withAdvice } from '../../error-advice.js';
import { jsonError, jsonLine, markJsonLines } from '../../json-output.js';
import { formatDuration } from '../../durations.js';
import { createProgressView } from '../../progress.js';
import { fileStore, resolveBaseUrl, resolveDatasetPath, resolveFilter, resolveToken } from '../../resolve-dataset.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';
import { progressHandler, type ReadSoFar } from './sync-output.js';
import { report, verdict } from './sync-report.js';
import { resolveTelemetry } from '../../telemetry-flag.js';
import { rateDispatcher, resolveReadSettings } from '../../resolve-service-settings.js';
import { requestLimits } from '../../request-limits.js';

export async function run(options: SyncCommandOptions, ctx: CliContext): Promise<void> {
  // --watch runs until stopped: JSON Lines (a failure at start-up is its error line).
  if (options.watch && options.json) markJsonLines(ctx);
  if (options.all && options.target !== undefined)
    throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
  if (options.reconcileEvery !== undefined && options.dryRun)
    throw usageError('--reconcile-every repairs what it finds: it cannot go with --dry-run', 'conflicting_flags');
  if (options.reconcileEvery !== undefined && !options.watch)
    throw usageError(
      '--reconcile-every goes with --watch; for one reconcile now, run `ledgerhook reconcile`',
      'reconcile_every_without_watch',
    );
  // A window re-read merges into the stored data: neither a rebuild nor a repeated poll.
  if (options.since !== undefined && (options.full || options.watch))
    throw usageError(`--since cannot go with ${options.full ? '--full' : '--watch'}`, 'conflicting_flags');
  if (!options.all && options.target === undefined)
    throw usageError(
      'say what to sync: an entity name (e.g. expenses), a path (/expenses/expenses) or --all; `ledgerhook entities` lists them',
      'missing_target',
    );
  const filter = resolveFilter(options);
  // Before anything is opened: a missing @opentelemetry/api is a usage error that leaves nothing behind.
  const telemetry = await resolveTelemetry(options, ctx);
  const entityPaths = await resolveEntityPaths(options, ctx);
  const paths =
    options.target === undefined
      ? ENTITIES.map((entity) => entityPath(entity, entityPaths))
      : [resolveDatasetPath(options.target, entityPaths)];
  const baseUrl = await resolveBaseUrl(options, ctx);
  if (baseUrl === undefined) throw usageError('no base URL', 'missing_base_url');
  const token = await resolveToken(options, ctx);
  const { expiredCursorStatuses, limit, lagMs, maxStampAheadMs, rateLimit } = await resolveReadSettings(options, ctx);
  // The stored rateLimit: every dataset of the run shares one pace.
  const dispatcher = await rateDispatcher(rateLimit, ctx);
  const storeUrl = resolveStoreUrl(options, ctx);
  const store = storeUrl
    ? await postgresStore(storeUrl, options.concurrency + 1, options.historyDays)
    : await fileStore(ctx, options.out, { create: !options.dryRun, historyDays: options.historyDays });
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  const soFar: ReadSoFar = new Map();
  const onProgress = progressHandler(ctx, progress, Boolean(options.json), soFar, Boolean(options.all));
  const datasets = paths.map(
    (path): SyncDatasetOptions => ({
      baseUrl,
      token,
      path,
      paths: entityPaths,
      filter,
      store,
      read: {
        limit,
        lagMs,
        maxStampAheadMs,
        expiredCursorStatuses,
        full: options.full,
        resume: options.resume,
        since: options.since,
      },
      output: {
        keepDeleted: options.keepDeleted,
        dryRun: options.dryRun,
        verify: options.verify,
        contract: options.contract,
      },
      limits: requestLimits(options),
      dispatcher,
      signal: ctx.signal,
      onProgress,
      telemetry,
    }),
  );
  if (options.watch) return watch(options, ctx, store, datasets, progress).finally(() => telemetry?.flush());
  let outcomes: SyncOutcome[];
  try {
    outcomes = await syncDatasets(datasets, options.concurrency);
  } finally {
    progress.stop();
    await store.close();
    await telemetry?.flush();
  }
  report(options, ctx, store, datasets, outcomes);
  verdict(options, ctx, outcomes, soFar, baseUrl);
}

/**
 * `--watch`: one report per round (with --json one JSON line per round, with kind and time) until
 * Ctrl-C, which ends it like listen: exit 130, each dataset as of its last finished sync.
 */
async function watch(
  options: Pick<SyncCommandOptions, 'interval' | 'concurrency' | 'json' | 'all' | 'reconcileEvery'>,
  ctx: CliContext,
  store: DatasetStore,
  datasets: readonly SyncDatasetOptions[],
  progress: Awaited<ReturnType<typeof createProgressView>>,
): Promise<void> {
  let rounds = 0;
  try {
    for await (const { round, outcomes, reconciled } of watchDatasets(datasets, {
      intervalMs: options.interval,
      concurrency: options.concurrency,
      signal: ctx.signal,
      reconcileEveryMs: options.reconcileEvery,
    })) {
      rounds = round;
      progress.stop();
      report(options, ctx, store, datasets, outcomes, round);
      if (reconciled) reportReconciled(options, ctx, store, reconciled, round);
      if (!options.json)
        writeLine(
          ctx.stderr,
          ctx.color.dim(
            `round ${round} done at ${clock()}; next in ${formatDuration(options.interval)} (Ctrl-C stops)`,
          ),
        );
    }
  } finally {
    progress.stop();
    await store.close();
  }
  const stopped = `watch stopped after ${rounds} round${rounds === 1 ? '' : 's'}; each dataset is as of its last finished sync (nothing half-written)`;
  if (options.json) writeLine(ctx.stdout, jsonLine('stopped', { rounds }));
  else writeLine(ctx.stderr, stopped);
}

/** A watch's reconcile: a JSON line, or each dataset's result (failures on stderr, as a round's). */
function reportReconciled(
  options: Pick<SyncCommandOptions, 'json'>,
  ctx: CliContext,
  store: DatasetStore,
  reconciled: ReadonlyArray<DatasetOutcome<ReconcileResult>>,
  round: number,
): void {
  if (options.json) {
    const datasets = reconciled.map((outcome) =>
      outcome.ok
        ? { ok: true, ...outcome.summary }
        : 'stopped' in outcome
          ? { ok: false, dataset: outcome.path, stopped: true }
          : { ok: false, dataset: outcome.path, error: jsonError(outcome.error) },
    );
    writeLine(ctx.stdout, jsonLine('reconcile', { round, datasets }));
    return;
  }
  for (const outcome of reconciled) {
    if (outcome.ok)
      for (const line of renderReconcile(outcome.summary, store, ctx)) writeLine(ctx.stdout, `reconcile ${line}`);
    else if (!('stopped' in outcome))
      writeLine(ctx.stderr, `${ctx.color.red('✖')} reconcile ${outcome.path}: ${withAdvice(outcome.error)}`);
  }
}

/** The local time of day with its zone offset: a round's line says when it ran. */
function clock(date = new Date()): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
}
