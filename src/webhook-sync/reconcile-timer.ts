import { entityAtPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { LedgerhookError } from '../errors.js';
import type { SharedBackoff } from '../http/retry-policy.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { normaliseBaseUrl, parseDatasetKey, stateKey, tokenFingerprint } from '../store/identity.js';
import type { ReconcileCounts } from '../store/dataset-activity.js';
import { reconcileCounts, reconcileDataset } from '../sync/reconcile.js';
import type { SyncScheduler } from './sync-scheduler.js';

export type ReconcileEvent =
  | ({
      type: 'reconcile-done';
      userId: string;
      dataset: string;
      equal: boolean;
    } & Pick<ReconcileCounts, 'missing' | 'extra' | 'different' | 'repaired'>)
  | { type: 'reconcile-failed'; userId: string; dataset: string; error: string };

export interface ReconcileTimerOptions {
  store: DatasetStore;
  baseUrl: string;
  tokenFor: (userId: string) => string | undefined;
  paths?: EntityPaths | undefined;
  limit?: number | undefined;
  maxStampAheadMs?: number | undefined;
  keepDeleted?: boolean | undefined;
  everyMs: number;
  scheduler: SyncScheduler;
  backoff: SharedBackoff;
  signal?: AbortSignal | undefined;
  emit: (event: ReconcileEvent) => void;
}

/**
 * listen --sync's reconcile schedule: every `everyMs`, each dataset the store has synced
 * from this server for a user with a token is reconciled with repair, through the same scheduler as
 * the webhook runs (never two runs of a dataset at once, and never in place of a waiting one). What
 * it repairs arrived without its webhook: the store records it as missed.
 */
export function startReconcileTimer(options: ReconcileTimerOptions): () => void {
  const round = async () => {
    const base = normaliseBaseUrl(options.baseUrl);
    for (const { ref } of await options.store.list().catch(() => [])) {
      const token = ref.baseUrl === base ? options.tokenFor(ref.userId) : undefined;
      const { path, filter } = parseDatasetKey(ref.dataset);
      if (!token || entityAtPath(path, options.paths)?.paginated === false) continue;
      const key = stateKey({
        userId: ref.userId,
        tokenFingerprint: tokenFingerprint(token),
        baseUrl: base,
        dataset: ref.dataset,
      });
      options.scheduler.requestIfIdle(key, async () => {
        try {
          const result = await reconcileDataset({
            baseUrl: options.baseUrl,
            token,
            path,
            filter,
            userId: ref.userId,
            paths: options.paths,
            store: options.store,
            read: { limit: options.limit, maxStampAheadMs: options.maxStampAheadMs },
            output: { keepDeleted: options.keepDeleted },
            backoff: options.backoff,
            signal: options.signal,
            repair: true,
          });
          const { missing, extra, different, repaired } = reconcileCounts(result);
          options.emit({
            type: 'reconcile-done',
            userId: ref.userId,
            dataset: ref.dataset,
            equal: result.equal,
            missing,
            extra,
            different,
            repaired,
          });
        } catch (error) {
          if (options.signal?.aborted) return;
          const message = error instanceof LedgerhookError ? error.message : String(error);
          options.emit({ type: 'reconcile-failed', userId: ref.userId, dataset: ref.dataset, error: message });
        }
      });
    }
  };
  const timer = setInterval(() => void round(), options.everyMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  options.signal?.addEventListener('abort', stop, { once: true });
  return stop;
}
