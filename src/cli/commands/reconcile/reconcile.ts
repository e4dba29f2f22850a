import { LedgerhookError, usageError } from '../../../errors.js';
import type { DatasetStore } from '../../../store/dataset-store.js';
import { normaliseBaseUrl, parseDatasetKey } from '../../../store/identity.js';
import { withRunClaim } from '../../../store/run-claim.js';
import { entityAtPath, type EntityPaths } from '../../../catalogue/entity-paths.js';
import {
  type ReconcileOptions,
  type ReconcileProgressEvent,
  type ReconcileResult,
  reconcileDataset,
} from '../../../sync/reconcile.js';
import { type DatasetOutcome, eachDataset } from '../../../sync/sync-many.js';
import { datasetRef } from '../../../sync/sync-dataset.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import { withAdvice } from '../../error-advice.js';
import { jsonError } from '../../json-output.js';
import { createProgressView } from '../../progress.js';
import { fileStore, resolveBaseUrl, resolveDatasetPath, resolveFilter, resolveToken } from '../../resolve-dataset.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import {
  rateDispatcher,
  resolveMaxStampAhead,
  resolvePageLimit,
  resolveRateLimit,
} from '../../resolve-service-settings.js';
import type { ReconcileCommandOptions } from './definition.js';
import { renderReconcile as render } from './render-reconcile.js';
import { requestLimits } from '../../request-limits.js';

/** The datasets of this user that the store has a state for (--all): only those can be reconciled. */
async function syncedPaths(
  store: DatasetStore,
  userId: string,
  baseUrl: string,
  paths: EntityPaths,
): Promise<Array<{ path: string; filter: Record<string, string> }>> {
  const base = normaliseBaseUrl(baseUrl);
  return (
    (await store.list())
      .filter(({ ref }) => ref.userId === userId && ref.baseUrl === base)
      .map(({ ref }) => parseDatasetKey(ref.dataset))
      // A document has no items to compare: each sync replaces it whole.
      .filter(({ path }) => entityAtPath(path, paths)?.paginated !== false)
  );
}

function progressHandler(ctx: CliContext, progress: Awaited<ReturnType<typeof createProgressView>>) {
  return (event: ReconcileProgressEvent) => {
    if (event.type === 'start')
      progress.update(`${event.dataset}: ${event.storedItems} stored items hashed, reading the server`);
    else if (event.type === 'page')
      progress.update(`${event.dataset}: page ${event.page}, ${event.itemsSoFar} items read`);
    else if (event.type === 'retry')
      progress.log(
        ctx.color.yellow(
          `${event.dataset}: retrying in ${(event.waitMs / 1000).toFixed(1)} s (attempt ${event.attempt}): ${event.reason}`,
        ),
      );
  };
}

export async function run(options: ReconcileCommandOptions, ctx: CliContext): Promise<void> {
  if (options.all && options.target !== undefined)
    throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
  if (!options.all && options.target === undefined)
    throw usageError(
      'say what to reconcile: an entity name (e.g. expenses), a path (/expenses/expenses) or --all',
      'missing_target',
    );
  const entityPaths = await resolveEntityPaths(options, ctx);
  const baseUrl = await resolveBaseUrl(options, ctx);
  if (baseUrl === undefined) throw usageError('no base URL', 'missing_base_url');
  const token = await resolveToken(options, ctx);
  const storeUrl = resolveStoreUrl(options, ctx);
  const store = storeUrl ? await postgresStore(storeUrl, options.concurrency + 1) : await fileStore(ctx, options.out);
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  let outcomes: Array<DatasetOutcome<ReconcileResult>>;
  try {
    const targets =
      options.target === undefined
        ? await syncedPaths(store, options.user ?? '', baseUrl, entityPaths)
        : [{ path: resolveDatasetPath(options.target, entityPaths), filter: resolveFilter(options) }];
    if (targets.length === 0)
      throw usageError(
        `no dataset has been synced from ${baseUrl} into ${store.stateLocation}: nothing to reconcile`,
        'dataset_not_synced',
      );
    const limit = await resolvePageLimit(options, ctx);
    const maxStampAheadMs = await resolveMaxStampAhead(options, ctx);
    const dispatcher = await rateDispatcher(await resolveRateLimit(options, ctx), ctx);
    const datasets = targets.map(
      ({ path, filter }): ReconcileOptions => ({
        baseUrl,
        token,
        path,
        filter,
        userId: options.user ?? '',
        paths: entityPaths,
        store,
        repair: options.repair,
        read: { limit, maxStampAheadMs },
        output: { keepDeleted: options.keepDeleted },
        limits: requestLimits(options),
        dispatcher,
        signal: ctx.signal,
        onProgress: progressHandler(ctx, progress),
      }),
    );
    // A repair writes: it holds the dataset's claim, so that no worker syncs it meanwhile (Postgres).
    const reconcile = (dataset: ReconcileOptions) =>
      options.repair
        ? withRunClaim(store, { userId: dataset.userId ?? '', dataset: datasetRef(dataset).dataset }, () =>
            reconcileDataset(dataset),
          )
        : reconcileDataset(dataset);
    outcomes = await eachDataset(datasets, reconcile, options.concurrency);
    report(options, ctx, store, datasets, outcomes);
  } finally {
    progress.stop();
    await store.close();
  }
  verdict(options, ctx, outcomes);
}

function report(
  options: ReconcileCommandOptions,
  ctx: CliContext,
  store: DatasetStore,
  datasets: readonly ReconcileOptions[],
  outcomes: ReadonlyArray<DatasetOutcome<ReconcileResult>>,
): void {
  const nameOf = (index: number, path: string) => {
    const dataset = datasets[index];
    return dataset ? datasetRef(dataset).dataset : path;
  };
  if (options.json) {
    const rendered = outcomes.map((outcome, index) =>
      outcome.ok
        ? { ok: true, ...outcome.summary, place: store.placeOf(outcome.summary) }
        : 'stopped' in outcome
          ? { ok: false, dataset: nameOf(index, outcome.path), stopped: true }
          : { ok: false, dataset: nameOf(index, outcome.path), error: jsonError(outcome.error) },
    );
    const [only] = rendered;
    if (options.all || !only) writeJson(ctx, { datasets: rendered });
    else {
      const { ok: _ok, error: _error, ...fields } = only as Record<string, unknown>;
      writeJson(ctx, fields);
    }
    return;
  }
  for (const outcome of outcomes) {
    if (outcome.ok) for (const line of render(outcome.summary, store, ctx)) writeLine(ctx.stdout, line);
    else if (!('stopped' in outcome) && options.all)
      writeLine(ctx.stderr, `${ctx.color.red('✖')} ${outcome.path}: ${withAdvice(outcome.error)}`);
  }
}

/** Exit 130 when stopped, the error of a failed dataset, 1 for a difference, else 0. */
function verdict(
  options: ReconcileCommandOptions,
  ctx: CliContext,
  outcomes: ReadonlyArray<DatasetOutcome<ReconcileResult>>,
) {
  if (ctx.signal.aborted || outcomes.some((outcome) => !outcome.ok && 'stopped' in outcome))
    throw new LedgerhookError(
      'ERR_ABORTED',
      'reconcile stopped; nothing was changed by the datasets it had not finished',
    );
  const failed = outcomes.filter((outcome) => !outcome.ok);
  const first = failed[0];
  if (first && !('stopped' in first)) {
    if (!options.all) throw first.error;
    throw new LedgerhookError(
      first.error.code,
      `${failed.length} of ${outcomes.length} datasets could not be reconciled`,
    );
  }
  const different = outcomes.flatMap((outcome) => (outcome.ok && !outcome.summary.equal ? [outcome.summary] : []));
  if (different.length === 0) return;
  // Repaired, there is nothing left to do: the exit says a change came without its webhook, the
  // advice no longer asks for the --repair that was just given.
  const repaired = different.every((result) => result.repaired !== undefined);
  throw new LedgerhookError(
    'ERR_CHECK_FAILED',
    `${different.length} of ${outcomes.length} dataset${outcomes.length === 1 ? '' : 's'} differed from the service${repaired ? ' and now match it (repaired)' : ''}`,
    { details: { reason: repaired ? 'reconcile_repaired' : 'reconcile_different' } },
  );
}
