import type { Telemetry } from '../telemetry/telemetry.js';
import type { ResolvedSyncDatasetOptions, SyncSummary } from './sync-options.js';

/**
 * A sync run as one span (`ledgerhook.sync`, the parent of its page fetches and its commit) and in
 * the metrics: its duration, and the 429 waits it rode out. Only used when telemetry is enabled.
 */
export async function tracedSync(
  telemetry: Telemetry,
  options: ResolvedSyncDatasetOptions,
  dataset: string,
  run: (options: ResolvedSyncDatasetOptions) => Promise<SyncSummary>,
): Promise<SyncSummary> {
  const startedAt = performance.now();
  const { cause, deliveryId } = options.history;
  const span = telemetry.span('ledgerhook.sync', {
    'ledgerhook.dataset': dataset,
    'ledgerhook.sync.cause': cause,
    'ledgerhook.user_id': options.userId || undefined,
    'ledgerhook.delivery.id': deliveryId,
    'ledgerhook.store': options.store.kind,
  });
  const seconds = () => (performance.now() - startedAt) / 1000;
  try {
    const summary = await run({ ...options, telemetry: telemetry.under(span) });
    span.setAttributes({
      'ledgerhook.sync.mode': summary.mode,
      'ledgerhook.sync.full_reason': summary.fullReason,
      'ledgerhook.sync.pages': summary.pages,
      'ledgerhook.sync.upserted': summary.upserted,
      'ledgerhook.sync.deleted': summary.deleted,
      'ledgerhook.sync.total': summary.total,
      'ledgerhook.sync.dry_run': summary.dryRun,
    });
    telemetry.record('ledgerhook.sync.duration', seconds(), {
      'ledgerhook.sync.mode': summary.mode,
      'ledgerhook.sync.cause': cause,
      'ledgerhook.sync.outcome': 'ok',
    });
    return summary;
  } catch (error) {
    span.fail(error);
    telemetry.record('ledgerhook.sync.duration', seconds(), {
      'ledgerhook.sync.cause': cause,
      'ledgerhook.sync.outcome': 'failed',
    });
    throw error;
  } finally {
    span.end();
  }
}

/** A wait on the service's 429 (its Retry-After), for the rate-limit metrics. */
export function countRateLimitWait(telemetry: Telemetry | undefined, waitMs: number): void {
  if (!telemetry?.enabled) return;
  telemetry.add('ledgerhook.sync.rate_limit.waits', 1);
  telemetry.record('ledgerhook.sync.rate_limit.wait_duration', waitMs / 1000);
}
