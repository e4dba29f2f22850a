import { resolveEntityPaths } from '../../resolve-settings.js';
import { usageError } from '../../../errors.js';
import type { DatasetState, DatasetStore } from '../../../store/dataset-store.js';
import { datasetKey, normaliseBaseUrl } from '../../../store/identity.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import type { StateCommandOptions } from './definition.js';
import { fileStore, resolveDatasetPath, resolveFilter } from '../../resolve-dataset.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';
import { table } from '../../table.js';

type Entry = Awaited<ReturnType<DatasetStore['list']>>[number];

/** The state never holds a token, only its fingerprint, and no checksum is worth a reader's time. */
const asJson = (entries: readonly Entry[]) =>
  entries.map(({ ref, state: { checksum: _checksum, ...state }, place }) => ({ ...ref, ...state, data: place }));

const owner = (ref: Entry['ref'], state: DatasetState) =>
  ref.userId === '' ? `token ${state.tokenFingerprint}` : JSON.stringify(ref.userId);

function render(entries: readonly Entry[], ctx: CliContext): void {
  if (entries.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim('no dataset synced yet'));
    return;
  }
  writeLine(
    ctx.stdout,
    table(
      ['dataset', 'user', 'server', 'lastUpdatedDate', 'synced at', 'items', 'mode', 'data'],
      entries.map(({ ref, state, place }) => [
        ref.dataset,
        owner(ref, state),
        ref.baseUrl,
        state.lastUpdatedDate,
        state.syncedAt,
        String(state.items),
        state.mode,
        place,
      ]),
      ctx.color.bold,
    ),
  );
}

/** The datasets a command names: all for list and reset --all, else one dataset (from one server, if given). */
async function choose(options: StateCommandOptions, ctx: CliContext, entries: readonly Entry[]): Promise<Entry[]> {
  if (options.action === 'list') return [...entries];
  if (options.action === 'reset' && options.all) {
    if (options.target !== undefined) throw usageError('give a TARGET or --all, not both', 'conflicting_flags');
    return [...entries];
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
    ({ ref }) => ref.dataset === wanted && (baseUrl === undefined || ref.baseUrl === normaliseBaseUrl(baseUrl)),
  );
  if (options.action === 'show' && matching.length === 0)
    throw usageError(
      `${wanted} has not been synced${baseUrl ? ` from ${baseUrl}` : ''}; \`ledgerhook state list\` shows what has`,
      'dataset_not_synced',
    );
  return matching;
}

/**
 * `state list|show|reset`, written once over DatasetStore.list/reset: the file store's state (the
 * config directory's state.json, every output folder) or a Postgres store's (--store).
 */
export async function run(options: StateCommandOptions, ctx: CliContext): Promise<void> {
  const storeUrl = resolveStoreUrl(options, ctx);
  // State only: no output directory is touched by these commands.
  const store: DatasetStore = storeUrl ? await postgresStore(storeUrl, 1) : await fileStore(ctx, '.');
  try {
    const chosen = await choose(options, ctx, await store.list());
    if (options.action === 'reset') {
      const gone: Entry['ref'][] = [];
      for (const { ref } of chosen) if (await store.reset(ref)) gone.push(ref);
      if (options.json) writeJson(ctx, { reset: gone });
      else
        writeLine(
          ctx.stdout,
          gone.length
            ? `forgot ${gone.map((ref) => `${ref.baseUrl}${ref.dataset}`).join(', ')}; the next sync of each is a full one`
            : options.all
              ? 'nothing to forget'
              : `${options.target} had no state`,
        );
      return;
    }
    if (options.json) writeJson(ctx, { state: store.stateLocation, datasets: asJson(chosen) });
    else render(chosen, ctx);
  } finally {
    await store.close();
  }
}
