import { resolveEntityPaths } from '../resolve-settings.js';
import { usageError } from '../../errors.js';
import { datasetKey } from '../../store/identity.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { StoreMigrateOptions } from '../definitions/store.js';
import type { StateCommandOptions } from '../definitions/sync.js';
import { resolveDatasetPath, resolveFilter } from '../resolve-dataset.js';
import { resolveStoreUrl } from '../resolve-scale.js';
import { table } from '../table.js';

export async function run(options: StoreMigrateOptions, ctx: CliContext): Promise<void> {
  const url = resolveStoreUrl(options, ctx);
  if (!url) throw usageError('no store: pass --store postgres://... or set LEDGERHOOK_STORE', 'missing_store');
  const { PostgresStore } = await import('../../store/postgres/postgres-store.js');
  const store = new PostgresStore({ url, maxConnections: 1 });
  try {
    const result = await store.migrate();
    if (options.json) writeJson(ctx, { store: store.url, ...result });
    else
      writeLine(
        ctx.stdout,
        result.applied.length
          ? `${store.url}: applied migration${result.applied.length === 1 ? '' : 's'} ${result.applied.join(', ')}; schema version ${result.version}`
          : `${store.url}: up to date (schema version ${result.version})`,
      );
  } finally {
    await store.close();
  }
}

/** `state list|show|reset` on the Postgres store (the file store's are in state.ts). */
export async function runPostgresState(options: StateCommandOptions, ctx: CliContext, url: string): Promise<void> {
  const { PostgresStore } = await import('../../store/postgres/postgres-store.js');
  const store = new PostgresStore({ url, maxConnections: 1 });
  try {
    const entries = await store.list();
    const label = (entry: (typeof entries)[number]) =>
      `${entry.ref.userId === '' ? '' : `${JSON.stringify(entry.ref.userId)} `}${entry.ref.baseUrl}${entry.ref.dataset}`;
    let chosen = entries;
    if (options.action !== 'list' && !(options.action === 'reset' && options.all)) {
      if (options.target === undefined)
        throw usageError(
          'say which dataset: an entity name or a path (or --all to reset everything)',
          'missing_target',
        );
      const dataset = datasetKey(
        resolveDatasetPath(options.target, await resolveEntityPaths(options, ctx)),
        resolveFilter(options),
      );
      chosen = entries.filter((entry) => entry.ref.dataset === dataset);
      if (options.action === 'show' && chosen.length === 0)
        throw usageError(
          `${dataset} has not been synced into ${store.url}; \`ledgerhook state list --store URL\` shows what has`,
          'dataset_not_synced',
        );
    } else if (options.target !== undefined && options.all)
      throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
    if (options.action === 'reset') {
      for (const entry of chosen) await store.reset(entry.ref);
      if (options.json) writeJson(ctx, { reset: chosen.map((entry) => entry.ref) });
      else
        writeLine(
          ctx.stdout,
          chosen.length
            ? `forgot ${chosen.map(label).join(', ')} (rows and state); the next sync is a full one`
            : 'nothing to forget',
        );
      return;
    }
    if (options.json) {
      writeJson(ctx, { store: store.url, datasets: chosen });
      return;
    }
    if (chosen.length === 0) {
      writeLine(ctx.stdout, ctx.color.dim('no dataset synced yet'));
      return;
    }
    writeLine(
      ctx.stdout,
      table(
        ['user', 'dataset', 'lastUpdatedDate', 'synced at', 'items', 'mode'],
        chosen.map((entry) => [
          JSON.stringify(entry.ref.userId),
          `${entry.ref.baseUrl}${entry.ref.dataset}`,
          entry.state.lastUpdatedDate,
          entry.state.syncedAt,
          String(entry.state.items),
          entry.state.mode,
        ]),
        ctx.color.bold,
      ),
    );
  } finally {
    await store.close();
  }
}
