import { dirname, isAbsolute, relative } from 'node:path';
import type { FullReadReason } from '../../../store/dataset-store.js';
import { ENTITIES } from '../../../catalogue/entities.js';
import { entityPath } from '../../../catalogue/entity-paths.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import { LedgerhookError, usageError } from '../../../errors.js';
import type { DatasetStore } from '../../../store/dataset-store.js';
import {
  datasetRef,
  type SyncDatasetOptions,
  type SyncProgressEvent,
  type SyncSummary,
} from '../../../sync/sync-dataset.js';
import { type DatasetOutcome, type SyncOutcome, syncDatasets } from '../../../sync/sync-many.js';
import type { ReconcileResult } from '../../../sync/reconcile.js';
import { renderReconcile } from '../reconcile/render-reconcile.js';
import { watchDatasets } from '../../../sync/sync-watch.js';
import { describeDrift } from '../../../sync/schema-drift.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import type { SyncCommandOptions } from './definition.js';
import { withAdvice } from '../../error-advice.js';
import { jsonError, jsonLine, markJsonLines } from '../../json-output.js';
import { formatDuration } from '../../durations.js';
import { createProgressView } from '../../progress.js';
import { fileStore, resolveBaseUrl, resolveDatasetPath, resolveFilter, resolveToken } from '../../resolve-dataset.js';
import { table } from '../../table.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';

type Rendered = SyncSummary & { file: string };

/** Why a run read everything, in the user's words: a full read is never unexplained. */
export function fullReasonText(reason: FullReadReason | undefined, file: string): string {
  switch (reason) {
    case 'requested':
      return '--full';
    case 'data-missing':
      return 'its data was gone';
    case 'token-changed':
      return 'another access token reads it now';
    default:
      return `first sync of this dataset into ${isTable(file) ? 'this Postgres store' : relativeToCwd(dirname(file)) || '.'}`;
  }
}

/** Where Postgres keeps a dataset (store.placeOf): a table, not a path to shorten. */
const isTable = (place: string) => place.startsWith('ledgerhook_items in ');

const relativeToCwd = (path: string) => (isAbsolute(path) ? relative(process.cwd(), path) : path);

function describe(summary: Rendered): string {
  const name = isTable(summary.file) ? summary.file : relativeToCwd(summary.file);
  const dry = summary.dryRun ? ' (dry run: nothing written)' : '';
  if (summary.mode === 'document')
    return `${summary.dataset}: not a paginated list, saved as a document in ${name}${dry}`;
  const changes =
    summary.mode === 'full'
      ? `${summary.total} items (${fullReasonText(summary.fullReason, summary.file)})`
      : `${summary.upserted} upserted, ${summary.deleted} deleted, ${summary.total} in all`;
  const quirks = summary.quirks?.length
    ? ` (the server ended the read with ${summary.quirks.map((quirk) => (quirk === 'cursor-null' ? 'cursor: null' : 'cursor: ""')).join(' and ')})`
    : '';
  return `${summary.dataset}: ${summary.mode}, ${summary.pages} page${summary.pages === 1 ? '' : 's'}, ${changes} → ${name}${dry}${quirks}`;
}

/** The end of `sync --all`: one row per dataset, then the totals. */
function summaryTable(outcomes: readonly SyncOutcome[], ctx: CliContext): string {
  let items = 0;
  let changes = 0;
  const rows = outcomes.map((outcome) => {
    if (!outcome.ok)
      return 'stopped' in outcome
        ? [outcome.path, 'stopped', '-', '-', '-']
        : [outcome.path, ctx.color.red('failed'), '-', '-', `${(outcome.ms / 1000).toFixed(1)}s`];
    const s = outcome.summary;
    items += s.total;
    changes += s.upserted + s.deleted;
    return [s.dataset, s.mode, String(s.total), String(s.upserted + s.deleted), `${(outcome.ms / 1000).toFixed(1)}s`];
  });
  const ok = outcomes.filter((outcome) => outcome.ok).length;
  rows.push([`total: ${ok} of ${outcomes.length} synced`, '', String(items), String(changes), '']);
  return table(['dataset', 'mode', 'items', 'changes', 'time'], rows, ctx.color.bold);
}

/** Pages and items read per dataset so far: what an interrupted run says it had done. */
type ReadSoFar = Map<string, { pages: number; items: number }>;

function progressHandler(
  ctx: CliContext,
  progress: Awaited<ReturnType<typeof createProgressView>>,
  json: boolean,
  soFar: ReadSoFar,
  all = false,
) {
  const started = Date.now();
  return (event: SyncProgressEvent) => {
    if (event.type === 'page') soFar.set(event.dataset, { pages: event.page, items: event.itemsSoFar });
    if (event.type === 'page') {
      const rate = event.itemsSoFar / Math.max(0.001, (Date.now() - started) / 1000);
      progress.update(`${event.dataset}: page ${event.page}, ${event.itemsSoFar} items (${rate.toFixed(0)}/s)`);
    } else if (event.type === 'retry') {
      const wait =
        event.waitMs >= 10_000 ? `${Math.round(event.waitMs / 1000)} s` : `${(event.waitMs / 1000).toFixed(1)} s`;
      progress.log(
        ctx.color.yellow(
          event.rateLimited
            ? `${event.dataset}: rate limited, retrying in ${wait} (attempt ${event.attempt}; pages read so far are kept)`
            : `${event.dataset}: retrying in ${wait} (attempt ${event.attempt}): ${event.reason}`,
        ),
      );
    } else if (event.type === 'start') {
      progress.update(`${event.dataset}: ${event.mode === 'full' ? 'full read' : `changes since ${event.since}`}`);
    } else if (event.type === 'done' && !json && all) {
      // One line per dataset: a single dataset's result line says it all; --all logs each as it ends.
      progress.log(
        `${ctx.color.green('✔')} ${event.summary.dataset}: ${event.summary.mode}, ${event.summary.total} items`,
      );
    }
  };
}

export async function run(options: SyncCommandOptions, ctx: CliContext): Promise<void> {
  // --watch runs until stopped: JSON Lines (a failure at start-up is its error line).
  if (options.watch && options.json) markJsonLines(ctx);
  if (options.all && options.target !== undefined)
    throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
  if (options.reconcileEvery !== undefined && !options.watch)
    throw usageError(
      '--reconcile-every goes with --watch; for one reconcile now, run `ledgerhook reconcile`',
      'reconcile_every_without_watch',
    );
  if (!options.all && options.target === undefined)
    throw usageError(
      'say what to sync: an entity name (e.g. expenses), a path (/expenses/expenses) or --all; `ledgerhook entities` lists them',
      'missing_target',
    );
  const filter = resolveFilter(options);
  const entityPaths = await resolveEntityPaths(options, ctx);
  const paths =
    options.target === undefined
      ? ENTITIES.map((entity) => entityPath(entity, entityPaths))
      : [resolveDatasetPath(options.target, entityPaths)];
  const baseUrl = await resolveBaseUrl(options, ctx);
  if (baseUrl === undefined) throw usageError('no base URL', 'missing_base_url');
  const token = await resolveToken(options, ctx);
  const storeUrl = resolveStoreUrl(options, ctx);
  const store = storeUrl
    ? await postgresStore(storeUrl, options.concurrency + 1, options.historyDays)
    : await fileStore(ctx, options.out, { create: !options.dryRun, historyDays: options.historyDays });
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  const soFar: ReadSoFar = new Map();
  const onProgress = progressHandler(ctx, progress, Boolean(options.json), soFar, Boolean(options.all));
  const datasets: SyncDatasetOptions[] = paths.map((path) => ({
    baseUrl,
    token,
    path,
    paths: entityPaths,
    filter,
    store,
    limit: options.limit,
    full: options.full,
    dryRun: options.dryRun,
    maxPages: options.maxPages,
    maxWaitMs: options.maxWait,
    lagMs: options.lag,
    keepDeleted: options.keepDeleted,
    contract: options.contract,
    maxResponseBytes: options.maxResponseBytes,
    timeoutMs: Math.round(options.timeout * 1000),
    signal: ctx.signal,
    onProgress,
  }));
  if (options.watch) return watch(options, ctx, store, datasets, progress);
  let outcomes: SyncOutcome[];
  try {
    outcomes = await syncDatasets(datasets, options.concurrency);
  } finally {
    progress.stop();
    await store.close();
  }
  report(options, ctx, store, datasets, outcomes);
  verdict(options, ctx, outcomes, soFar);
}

/**
 * `--watch`: one report per round (with --json one JSON line per round, with kind and time) until
 * Ctrl-C, which ends it like listen: exit 0, each dataset as of its last finished sync.
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

function report(
  options: Pick<SyncCommandOptions, 'json' | 'all'>,
  ctx: CliContext,
  store: DatasetStore,
  datasets: readonly SyncDatasetOptions[],
  outcomes: readonly SyncOutcome[],
  round?: number,
): void {
  const fileOf = (index: number) => {
    const dataset = datasets[index];
    return dataset ? store.placeOf(datasetRef(dataset)) : '';
  };
  // The dataset as the user named it, filter included (/expenses?type=PENDING).
  const nameOf = (index: number, path: string) => {
    const dataset = datasets[index];
    return dataset ? datasetRef(dataset).dataset : path;
  };
  const rendered = outcomes.map((outcome, index) => {
    if (outcome.ok) return { ok: true, ...outcome.summary, file: fileOf(index) };
    if ('stopped' in outcome) return { ok: false, dataset: nameOf(index, outcome.path), stopped: true };
    return { ok: false, dataset: nameOf(index, outcome.path), error: jsonError(outcome.error) };
  });
  if (options.json && round !== undefined) {
    writeLine(ctx.stdout, jsonLine('round', { round, datasets: rendered }));
  } else if (options.json && options.all) {
    writeJson(ctx, { datasets: rendered });
  } else if (options.json) {
    // One dataset: its summary is the document; on failure the contract's error says why.
    const [only] = rendered;
    if (only) {
      const { ok: _ok, error: _error, ...fields } = only as Record<string, unknown>;
      writeJson(ctx, fields);
    }
  } else if (!options.all)
    outcomes.forEach((outcome, index) => {
      if (!outcome.ok) return;
      writeLine(ctx.stdout, `${ctx.color.green('✔')} ${describe({ ...outcome.summary, file: fileOf(index) })}`);
      if (outcome.summary.drift) writeLine(ctx.stdout, `  schema: ${describeDrift(outcome.summary.drift)}`);
    });
  if (options.all || round !== undefined)
    for (const outcome of outcomes)
      if (!outcome.ok && !('stopped' in outcome))
        writeLine(ctx.stderr, `${ctx.color.red('✖')} ${outcome.path}: ${withAdvice(outcome.error)}`);
  if (options.all && !options.json) {
    writeLine(ctx.stdout, summaryTable(outcomes, ctx));
    for (const outcome of outcomes)
      if (outcome.ok && outcome.summary.drift)
        writeLine(ctx.stdout, `schema of ${outcome.summary.dataset}: ${describeDrift(outcome.summary.drift)}`);
  }
}

/** The exit: interrupted (which datasets finished, which were left), failed, or fine. */
function verdict(
  options: Pick<SyncCommandOptions, 'all'>,
  ctx: CliContext,
  outcomes: readonly SyncOutcome[],
  soFar: ReadSoFar = new Map(),
): void {
  const stopped = outcomes.filter((outcome) => !outcome.ok && 'stopped' in outcome);
  if (ctx.signal.aborted || stopped.length > 0) {
    const done = outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.path);
    const left = stopped.map((outcome) => {
      const read = soFar.get(outcome.path);
      return read
        ? `${outcome.path} (${read.pages} page${read.pages === 1 ? '' : 's'}, ${read.items} item${read.items === 1 ? '' : 's'} read, not committed: a run commits only once its read is complete)`
        : outcome.path;
    });
    const finished = done.length ? `finished: ${done.join(', ')}; ` : '';
    throw new LedgerhookError(
      'ERR_ABORTED',
      `sync stopped; ${finished}left as they were (nothing half-written): ${left.join(', ') || 'none'}`,
    );
  }
  const failures = outcomes.filter((outcome) => !outcome.ok);
  const first = failures[0];
  if (first === undefined || 'stopped' in first) return;
  if (!options.all) throw first.error;
  throw new LedgerhookError(
    first.error.code,
    `${failures.length} of ${outcomes.length} datasets failed; the others are synced`,
  );
}
