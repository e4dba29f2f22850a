import { usageError } from '../../../errors.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { StoreMigrateOptions } from './definition.js';
import { resolveStoreUrl } from '../../resolve-scale.js';

export async function run(options: StoreMigrateOptions, ctx: CliContext): Promise<void> {
  const url = resolveStoreUrl(options, ctx);
  if (!url) throw usageError('no store: pass --store postgres://... or set LEDGERHOOK_STORE', 'missing_store');
  const { PostgresStore } = await import('../../../store/postgres/postgres-store.js');
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
