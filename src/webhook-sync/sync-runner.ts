import { LedgerhookError } from '../errors.js';
import type { SharedBackoff } from '../http/retry-policy.js';
import { syncDataset } from '../sync/sync-dataset.js';
import { isTransientFailure } from '../sync/transient.js';
import type { RunLinks } from '../telemetry/run-links.js';
import { backoffWait } from '../util/backoff.js';
import { type ReceiptWindows, recordWebhookRun } from './run-activity.js';
import type { SyncScheduler } from './sync-scheduler.js';
import type { ResolvedWebhookSyncOptions, WebhookSyncEvent } from './webhook-sync-options.js';

/** What every sync started by one webhook sync shares. */
export interface SyncRunner {
  options: ResolvedWebhookSyncOptions;
  scheduler: SyncScheduler;
  backoff: SharedBackoff;
  emit: (event: WebhookSyncEvent) => void;
  /** Numbers the runs in the order they start. */
  nextRun: () => number;
  /** Runs `then` after `ms` (a pending retry); cancelled when the signal aborts. */
  later: (ms: number, then: () => void) => void;
  /** When the deliveries each dataset's next run answers first arrived. */
  receipts: ReceiptWindows;
  /** The spans of the deliveries each dataset's next run answers (traced only). */
  links: RunLinks;
}

/** One dataset's sync as the scheduler runs it: reported from start to done or failed, never thrown. */
export async function runSync(
  runner: SyncRunner,
  token: string,
  userId: string,
  entity: string,
  path: string,
  again: (retry: number, inMs: number) => void,
  retry = 0,
  key = '',
) {
  const { options, emit } = runner;
  const run = runner.nextRun();
  const firstReceipt = runner.receipts.take(key);
  const caused = runner.links.take(key);
  const { telemetry, read, limits } = options;
  emit({ type: 'sync-start', userId, entity, dataset: path, run });
  try {
    const ref = { baseUrl: options.baseUrl, token, path, userId };
    const summary = await syncDataset({
      ...ref,
      history: { cause: 'webhook', deliveryId: firstReceipt?.deliveryId },
      output: { keepDeleted: options.keepDeleted },
      paths: options.paths,
      store: options.store,
      backoff: runner.backoff,
      read,
      limits: { maxWaitMs: limits.maxWaitMs, timeoutMs: limits.timeoutMs },
      dispatcher: options.dispatcher,
      signal: options.signal,
      telemetry: telemetry.enabled ? telemetry.under(caused[0], caused.slice(1)) : undefined,
    });
    await recordWebhookRun(options.store, ref, summary, firstReceipt?.atMs, options.now);
    emit({ type: 'sync-done', userId, entity, run, summary });
  } catch (error) {
    const message = error instanceof LedgerhookError ? error.message : String(error);
    if (isTransientFailure(error) && retry < options.retry.max && !options.signal?.aborted) {
      const inMs = backoffWait(retry + 1, options.retry);
      emit({ type: 'sync-retry', userId, entity, dataset: path, run, retry: retry + 1, inMs, error: message });
      runner.receipts.note(key, firstReceipt);
      runner.links.note(key, caused);
      again(retry + 1, inMs);
      return;
    }
    emit({
      type: 'sync-failed',
      userId,
      entity,
      dataset: path,
      run,
      error: error instanceof LedgerhookError ? error.message : String(error),
    });
  }
}
