import { ENTITIES } from '../../catalogue/entities.js';
import { LedgerhookError, usageError } from '../../errors.js';
import { syncDatasets } from '../../sync/sync-many.js';
import type { SyncDatasetOptions, SyncProgressEvent, SyncSummary } from '../../sync/sync-dataset.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { SyncCommandOptions } from '../definitions/sync.js';
import { createProgressView } from '../progress.js';
import { resolveBaseUrl, resolveDatasetPath, resolveFilter, resolveToken, stateStore } from '../resolve-dataset.js';

function describe(summary: SyncSummary): string {
  const name = summary.file.split(/[\\/]/).pop();
  if (summary.mode === 'document') return `${summary.dataset}: not a paginated list, saved as a document in ${name}${summary.dryRun ? ' (dry run: not written)' : ''}`;
  const changes = summary.mode === 'full' ? `${summary.total} items` : `${summary.upserted} upserted, ${summary.deleted} deleted, ${summary.total} in all`;
  return `${summary.dataset}: ${summary.mode}, ${summary.pages} page${summary.pages === 1 ? '' : 's'}, ${changes} → ${name}${summary.dryRun ? ' (dry run: nothing written)' : ''}`;
}

export async function run(options: SyncCommandOptions, ctx: CliContext): Promise<void> {
  if (options.all && options.target !== undefined) throw usageError('give a TARGET or --all, not both');
  if (!options.all && options.target === undefined) throw usageError('say what to sync: an entity name (e.g. expenses), a path (/expenses/expenses) or --all; `ledgerhook entities` lists them');
  const filter = resolveFilter(options);
  const paths = options.all ? ENTITIES.map((entity) => entity.path) : [resolveDatasetPath(options.target!)];
  const baseUrl = (await resolveBaseUrl(options, ctx))!;
  const token = await resolveToken(options, ctx);
  const store = await stateStore(ctx);
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  const started = Date.now();
  const onProgress = (event: SyncProgressEvent) => {
    if (event.type === 'page') {
      const rate = event.itemsSoFar / Math.max(0.001, (Date.now() - started) / 1000);
      progress.update(`${event.dataset}: page ${event.page}, ${event.itemsSoFar} items (${rate.toFixed(0)}/s)`);
    } else if (event.type === 'retry') {
      progress.log(ctx.color.yellow(`${event.dataset}: retrying in ${(event.waitMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.reason}`));
    } else if (event.type === 'start') {
      progress.update(`${event.dataset}: ${event.mode === 'full' ? 'full read' : `changes since ${event.since}`}`);
    } else if (event.type === 'done' && !options.json) {
      progress.log(`${ctx.color.green('✔')} ${describe(event.summary)}`);
    }
  };
  const datasets: SyncDatasetOptions[] = paths.map((path) => ({
    baseUrl, token, path, filter, limit: options.limit, outDir: options.out, store, signal: ctx.signal, onProgress,
    ...(options.full ? { full: true } : {}), ...(options.dryRun ? { dryRun: true } : {}),
  }));
  let outcomes;
  try {
    outcomes = await syncDatasets(datasets, options.concurrency);
  } catch (error) {
    progress.stop();
    if (error instanceof LedgerhookError && error.code === 'ERR_ABORTED') {
      throw new LedgerhookError('ERR_ABORTED', 'sync stopped; nothing was half-written: the previous files and state are as they were');
    }
    throw error;
  }
  progress.stop();
  const failures = outcomes.filter((outcome) => !outcome.ok);
  if (options.json) {
    const rendered = outcomes.map((outcome) => (outcome.ok ? outcome.summary : { dataset: outcome.path, error: outcome.error.message, code: outcome.error.code }));
    writeJson(ctx, options.all ? { datasets: rendered } : rendered[0]);
  }
  for (const failure of failures) {
    if (!failure.ok && options.all) writeLine(ctx.stderr, `${ctx.color.red('✖')} ${failure.path}: ${failure.error.message}`);
  }
  if (failures.length === 1 && !options.all) throw (failures[0] as { error: LedgerhookError }).error;
  if (failures.length > 0) {
    const first = failures[0] as { error: LedgerhookError };
    throw new LedgerhookError(first.error.code, `${failures.length} of ${outcomes.length} datasets failed; the others are synced`);
  }
}
