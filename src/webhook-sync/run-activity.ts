import { withRun } from '../store/dataset-activity.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { datasetRef, type SyncSummary } from '../sync/sync-dataset.js';

/**
 * The earliest receipt of the deliveries a run answers, per dataset key: a burst coalesced into one
 * run is measured from its first delivery, and one that arrives while the run reads starts the
 * next window (the follow-up run answers it).
 */
export class ReceiptWindows {
  readonly #first = new Map<string, Receipt>();

  note(key: string, receipt: Receipt | undefined): void {
    if (receipt === undefined) return;
    const before = this.#first.get(key);
    if (before === undefined || receipt.atMs < before.atMs) this.#first.set(key, receipt);
  }

  take(key: string): Receipt | undefined {
    const first = this.#first.get(key);
    this.#first.delete(key);
    return first;
  }
}

/** The first delivery a run answers: when it arrived, and its id (the run's provenance). */
export interface Receipt {
  atMs: number;
  deliveryId?: string | undefined;
}

/**
 * A webhook-caused run in the dataset's activity: whether it brought a change, and the time from
 * the first delivery to the data committed. Activity is advisory: failing to record it never fails
 * the sync, whose data and state are already committed.
 */
export async function recordWebhookRun(
  store: DatasetStore,
  ref: Parameters<typeof datasetRef>[0],
  summary: SyncSummary,
  receivedAtMs: number | undefined,
  now: () => number,
): Promise<void> {
  if (summary.dryRun) return;
  const changes = summary.mode === 'incremental' ? summary.upserted + summary.deleted : summary.total;
  const latencyMs = receivedAtMs === undefined ? undefined : Math.max(0, now() - receivedAtMs);
  await store
    .updateActivity(datasetRef(ref), (previous) => withRun(previous, { cause: 'webhook', changes, latencyMs }))
    .catch(() => {});
}
