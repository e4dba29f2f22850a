import { usageError } from '../../errors.js';
import { datasetKey, type SyncStateRecord } from '../../sync/state-store.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { StateCommandOptions } from '../definitions/sync.js';
import { resolveDatasetPath, resolveFilter, stateStore } from '../resolve-dataset.js';
import { table } from '../table.js';

function render(entries: Array<[string, SyncStateRecord]>, ctx: CliContext): void {
  if (entries.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim('no dataset synced yet'));
    return;
  }
  writeLine(ctx.stdout, table(['dataset', 'lastUpdatedDate', 'synced at', 'items', 'file'], entries.map(([key, record]) => [
    key, record.lastUpdatedDate, record.syncedAt, String(record.items), record.file,
  ]), ctx.color.bold));
}

export async function run(options: StateCommandOptions, ctx: CliContext): Promise<void> {
  const store = await stateStore(ctx);
  const entries = store.entries();
  if (options.action === 'list') {
    if (options.json) writeJson(ctx, { path: store.path, datasets: Object.fromEntries(entries) });
    else render(entries, ctx);
    return;
  }
  if (options.action === 'reset' && options.all) {
    if (options.target !== undefined) throw usageError('give a TARGET or --all, not both');
    for (const [key] of entries) store.delete(key);
    if (options.json) writeJson(ctx, { reset: entries.map(([key]) => key) });
    else writeLine(ctx.stdout, `forgot ${entries.length} dataset${entries.length === 1 ? '' : 's'}; the next sync of each is a full one`);
    return;
  }
  if (options.target === undefined) throw usageError('say which dataset: an entity name or a path (or --all to reset everything)');
  const path = resolveDatasetPath(options.target);
  const filter = resolveFilter(options);
  const wanted = datasetKey('', path, filter);
  const baseUrl = options.baseUrl ?? ctx.env.LEDGERHOOK_BASE_URL;
  // Without a base URL, the dataset on every server it was synced from.
  const matching = entries.filter(([key, record]) => (baseUrl ? key === datasetKey(baseUrl, path, filter) : datasetKey('', record.path, record.filter) === wanted));
  if (options.action === 'show') {
    if (matching.length === 0) throw usageError(`${wanted} has not been synced${baseUrl ? ` from ${baseUrl}` : ''}; \`ledgerhook state list\` shows what has`);
    if (options.json) writeJson(ctx, Object.fromEntries(matching));
    else render(matching, ctx);
    return;
  }
  for (const [key] of matching) store.delete(key);
  if (options.json) writeJson(ctx, { reset: matching.map(([key]) => key) });
  else writeLine(ctx.stdout, matching.length ? `forgot ${matching.map(([key]) => key).join(', ')}; the next sync is a full one` : `${wanted} had no state`);
}
