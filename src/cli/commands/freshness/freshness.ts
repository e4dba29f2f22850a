import type { FreshnessRow } from '../../../webhook-sync/freshness.js';
import { freshnessReport } from '../../../webhook-sync/freshness.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import { fileStore } from '../../resolve-dataset.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import { table } from '../../table.js';
import { quoted } from '../../render-delivery.js';
import type { FreshnessCommandOptions } from './definition.js';

const ms = (value: number | undefined) =>
  value === undefined ? '-' : value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : `${value} ms`;

function reconcileText(row: FreshnessRow): string {
  const last = row.lastReconcile;
  if (!last) return 'never';
  const difference = last.missing + last.extra + last.different;
  const result = difference === 0 ? 'equal' : `${difference} differed${last.repaired ? ', repaired' : ''}`;
  return `${last.at} ${result}`;
}

export async function run(options: FreshnessCommandOptions, ctx: CliContext): Promise<void> {
  const storeUrl = resolveStoreUrl(options, ctx);
  // The file store's state covers every output directory, so no --out is needed to read it.
  const store = storeUrl ? await postgresStore(storeUrl, 1) : await fileStore(ctx, '.');
  let report: Awaited<ReturnType<typeof freshnessReport>>;
  try {
    report = await freshnessReport({ store, capture: options.capture, paths: await resolveEntityPaths({}, ctx) });
  } finally {
    await store.close();
  }
  for (const warning of report.warnings) writeLine(ctx.stderr, ctx.color.yellow(`warning: ${warning}`));
  if (options.json) {
    writeJson(ctx, { state: store.stateLocation, datasets: report.rows });
    return;
  }
  if (report.rows.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim(`no dataset synced yet (${store.stateLocation})`));
    return;
  }
  const withCapture = options.capture !== undefined;
  writeLine(
    ctx.stdout,
    table(
      [
        'dataset',
        'user',
        ...(withCapture ? ['deliveries'] : []),
        'webhook runs',
        'no change',
        'p50',
        'p95',
        'missed',
        'last reconcile',
      ],
      report.rows.map((row) => [
        row.dataset,
        row.userId === '' ? '-' : quoted(row.userId),
        ...(withCapture ? [String(row.deliveries ?? 0)] : []),
        String(row.webhookRuns),
        String(row.emptyWebhookRuns),
        ms(row.p50Ms),
        ms(row.p95Ms),
        row.missedChanges === 0
          ? '0'
          : `${row.missedChanges} in ${row.missedRuns} run${row.missedRuns === 1 ? '' : 's'}`,
        reconcileText(row),
      ]),
      ctx.color.bold,
    ),
  );
}
