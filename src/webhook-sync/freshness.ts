import { findEntity } from '@ledgerhook/webhooks';
import { entityPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { readCaptures } from '../capture/read-captures.js';
import { percentile, type ReconcileRecord } from '../store/dataset-activity.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { datasetKey } from '../store/identity.js';

/** How current one dataset is kept by its webhooks, from the store's state and activity (and captures). */
export interface FreshnessRow {
  userId: string;
  dataset: string;
  baseUrl: string;
  syncedAt: string;
  items: number;
  /** Verified ENTITY_UPDATEs for this user naming this dataset's entity, when a capture file was read. */
  deliveries?: number | undefined;
  webhookRuns: number;
  /** Webhook-caused runs that found nothing new (a duplicate, or a webhook ahead of the data). */
  emptyWebhookRuns: number;
  /** Time from a webhook's receipt to its data committed, over the latest `samples` runs. */
  p50Ms?: number | undefined;
  p95Ms?: number | undefined;
  samples: number;
  /** Changes a reconcile repaired: they had arrived with no webhook announcing them. */
  missedChanges: number;
  missedRuns: number;
  lastMissedAt?: string | undefined;
  lastReconcile?: ReconcileRecord | undefined;
}

export interface FreshnessOptions {
  store: DatasetStore;
  /** A capture file of `listen --capture`: counts the deliveries per user and dataset. */
  capture?: string | undefined;
  paths?: EntityPaths | undefined;
}

const rowKey = (userId: string, dataset: string) => `${userId.length}:${userId}${dataset}`;

/** Verified ENTITY_UPDATEs per (user, dataset of each entity named), read from a capture file. */
async function deliveriesByDataset(capture: string, paths: EntityPaths | undefined) {
  const counts = new Map<string, number>();
  const { records, warnings } = await readCaptures(capture);
  for (const record of records) {
    if (record.verdict.valid !== true || record.type !== 'ENTITY_UPDATE' || record.userId === undefined) continue;
    for (const name of new Set(record.entities ?? [])) {
      const entity = findEntity(name);
      if (!entity) continue;
      const key = rowKey(record.userId, datasetKey(entityPath(entity, paths)));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return { counts, warnings };
}

/**
 * Per dataset: webhook runs, p50/p95 from webhook to committed data, missed-webhook counts and the
 * last reconcile, as the store recorded them; with a capture file, the deliveries received too.
 */
export async function freshnessReport(
  options: FreshnessOptions,
): Promise<{ rows: FreshnessRow[]; warnings: string[] }> {
  const captured = options.capture ? await deliveriesByDataset(options.capture, options.paths) : undefined;
  const rows = (await options.store.list()).map(({ ref, state, activity }): FreshnessRow => {
    const latencies = activity?.latenciesMs ?? [];
    return {
      userId: ref.userId,
      dataset: ref.dataset,
      baseUrl: ref.baseUrl,
      syncedAt: state.syncedAt,
      items: state.items,
      ...(captured ? { deliveries: captured.counts.get(rowKey(ref.userId, ref.dataset)) ?? 0 } : {}),
      webhookRuns: activity?.webhookRuns ?? 0,
      emptyWebhookRuns: activity?.emptyWebhookRuns ?? 0,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      samples: latencies.length,
      missedChanges: activity?.missedChanges ?? 0,
      missedRuns: activity?.missedRuns ?? 0,
      lastMissedAt: activity?.lastMissedAt,
      lastReconcile: activity?.lastReconcile,
    };
  });
  return { rows, warnings: captured?.warnings ?? [] };
}
