import { resolveEntityPaths } from '../resolve-settings.js';
import { usageError } from '../../errors.js';
import type { FileStoreRecord } from '../../store/file/file-store-state.js';
import { datasetKey, normaliseBaseUrl } from '../../store/identity.js';
import { type CliContext, writeJson, writeLine } from '../context.js';
import type { StateCommandOptions } from '../definitions/sync.js';
import { fileStore, resolveDatasetPath, resolveFilter } from '../resolve-dataset.js';
import { table } from '../table.js';
import { resolveStoreUrl } from '../resolve-scale.js';

type Entry = [string, FileStoreRecord];

function render(entries: readonly Entry[], ctx: CliContext): void {
  if (entries.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim('no dataset synced yet'));
    return;
  }
  writeLine(
    ctx.stdout,
    table(
      ['dataset', 'user', 'server', 'lastUpdatedDate', 'synced at', 'items', 'file'],
      entries.map(([, r]) => [
        r.dataset,
        r.userId === '' ? `token ${r.tokenFingerprint}` : r.userId,
        r.baseUrl,
        r.lastUpdatedDate,
        r.syncedAt,
        String(r.items),
        r.file,
      ]),
      ctx.color.bold,
    ),
  );
}

/** The state never holds a token, only its fingerprint: safe to print whole. */
function asJson(entries: readonly Entry[]) {
  return Object.fromEntries(entries.map(([key, { pending: _pending, ...record }]) => [key, record]));
}

export async function run(options: StateCommandOptions, ctx: CliContext): Promise<void> {
  const storeUrl = resolveStoreUrl(options, ctx);
  if (storeUrl) return (await import('./store.js')).runPostgresState(options, ctx, storeUrl);
  // State only: the out directory is never touched by these commands.
  const store = await fileStore(ctx, '.');
  const entries = await store.records();
  if (options.action === 'list') {
    if (options.json) writeJson(ctx, { path: store.stateFile.path, datasets: asJson(entries) });
    else render(entries, ctx);
    return;
  }
  if (options.action === 'reset' && options.all) {
    if (options.target !== undefined) throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
    const gone = await store.forget(entries.map(([key]) => key));
    if (options.json) writeJson(ctx, { reset: gone });
    else
      writeLine(
        ctx.stdout,
        `forgot ${gone.length} dataset${gone.length === 1 ? '' : 's'}; the next sync of each is a full one`,
      );
    return;
  }
  if (options.target === undefined)
    throw usageError('say which dataset: an entity name or a path (or --all to reset everything)', 'missing_target');
  const wanted = datasetKey(
    resolveDatasetPath(options.target, await resolveEntityPaths(options, ctx)),
    resolveFilter(options),
  );
  const baseUrl = options.baseUrl ?? ctx.env.LEDGERHOOK_BASE_URL;
  // Without a base URL: the dataset from every server and for every owner it was synced for.
  const matching = entries.filter(
    ([, record]) =>
      record.dataset === wanted && (baseUrl === undefined || record.baseUrl === normaliseBaseUrl(baseUrl)),
  );
  if (options.action === 'show') {
    if (matching.length === 0)
      throw usageError(
        `${wanted} has not been synced${baseUrl ? ` from ${baseUrl}` : ''}; \`ledgerhook state list\` shows what has`,
        'dataset_not_synced',
      );
    if (options.json) writeJson(ctx, { datasets: asJson(matching) });
    else render(matching, ctx);
    return;
  }
  const gone = await store.forget(matching.map(([key]) => key));
  if (options.json) writeJson(ctx, { reset: gone });
  else
    writeLine(
      ctx.stdout,
      gone.length ? `forgot ${gone.join(', ')}; the next sync is a full one` : `${wanted} had no state`,
    );
}
