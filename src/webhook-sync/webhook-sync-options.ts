import type { Dispatcher } from 'undici';
import { checkEntityPaths, type EntityPaths } from '../catalogue/entity-paths.js';
import type { DatasetStore } from '../store/dataset-store.js';
import type { SyncSummary } from '../sync/sync-dataset.js';
import type { SyncDatasetOptions } from '../sync/sync-options.js';
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';
import type { ReconcileEvent } from './reconcile-timer.js';

/*
 * What createWebhookSync (webhook-sync.ts) takes, resolved once, and what it reports: apart from it so
 * that the runs (sync-runner.ts) and the body's events (body-events.ts) are typed by them without a cycle.
 */

export type WebhookSyncEvent =
  | { type: 'sync-start'; userId: string; entity: string; dataset: string; run: number }
  | { type: 'sync-done'; userId: string; entity: string; run: number; summary: SyncSummary }
  | { type: 'sync-failed'; userId: string; entity: string; dataset: string; run: number; error: string }
  /** A transient failure (service or store unreachable, 5xx, 429): the sync runs again after `inMs`. */
  | {
      type: 'sync-retry';
      userId: string;
      entity: string;
      dataset: string;
      run: number;
      retry: number;
      inMs: number;
      error: string;
    }
  | { type: 'sync-coalesced'; userId: string; entity: string; dataset: string }
  | { type: 'unknown-entity'; userId: string; entity: string }
  | { type: 'no-token'; userId: string; entities: string[] }
  /** A userId that cannot name a user of its own ('', '.', '..', too long): nothing synced. */
  | { type: 'bad-user'; userId: string; error: string }
  /** An authentic delivery whose body is not the spec's shape (a userId that is a number, say): nothing synced. */
  | { type: 'invalid-body'; code: 'invalid_user' | 'invalid_body'; reason: string }
  | { type: 'lifecycle'; userId: string; event: string; message: string; known: boolean }
  | ReconcileEvent;

export interface WebhookSyncOptions {
  baseUrl: string;
  /** The access token for a user, or undefined when there is none (recorded, not fatal). */
  tokenFor: (userId: string) => string | undefined;
  /** List paths that replace the catalogue's for some entities, e.g. `{ expense: '/expenses/expenses' }`. */
  paths?: EntityPaths | undefined;
  /** Where each user's data and state go (a FileStore keeps each user in a directory of their own). */
  store: DatasetStore;
  /** Keep removed items as tombstones with when and why they left (syncDataset's output.keepDeleted). */
  keepDeleted?: boolean | undefined;
  /** How each dataset is read: syncDataset's settings of the same names (and its defaults). */
  read?:
    | Pick<NonNullable<SyncDatasetOptions['read']>, 'limit' | 'lagMs' | 'maxStampAheadMs' | 'expiredCursorStatuses'>
    | undefined;
  /**
   * A sync failing for a transient reason is run again after a wait below firstMs, doubling up to capMs
   * (util/backoff.ts), at most `max` times (default 2 s, 60 s, 12: about four minutes of waiting in
   * all, eight at most), each said as a sync-retry event.
   */
  retry?: { firstMs?: number | undefined; capMs?: number | undefined; max?: number | undefined } | undefined;
  limits?:
    | {
        /** Datasets synced at once across all users; default 4. */
        concurrency?: number | undefined;
        /** Waiting allowed per request for 429 and 5xx answers before a run fails (then retried as above). */
        maxWaitMs?: number | undefined;
        timeoutMs?: number | undefined;
      }
    | undefined;
  /** Reconcile every synced dataset this often, with repair (what it repairs no webhook announced). */
  reconcileEveryMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** Clock in ms since the epoch, for the time from a webhook to its data committed (freshness). */
  now?: (() => number) | undefined;
  onEvent?: ((event: WebhookSyncEvent) => void) | undefined;
  /**
   * Traces and metrics (openTelemetry()): each run is a span in the trace of the first delivery it
   * answers (the listener's `telemetry` gives deliveries theirs), linked to the others coalesced into it.
   */
  telemetry?: Telemetry | undefined;
}

/**
 * createWebhookSync's options with its own defaults applied and the paths checked; what it hands to
 * syncDataset (`read`, `maxWaitMs`, `timeoutMs`) is left for syncDataset's defaults.
 */
export interface ResolvedWebhookSyncOptions
  extends Pick<WebhookSyncOptions, 'baseUrl' | 'tokenFor' | 'paths' | 'store' | 'keepDeleted' | 'reconcileEveryMs'> {
  read: NonNullable<WebhookSyncOptions['read']>;
  retry: { firstMs?: number | undefined; capMs?: number | undefined; max: number };
  limits: { concurrency: number; maxWaitMs: number | undefined; timeoutMs: number | undefined };
  dispatcher: Dispatcher | undefined;
  signal: AbortSignal | undefined;
  now: () => number;
  onEvent: (event: WebhookSyncEvent) => void;
  telemetry: Telemetry;
}

/** Resolved once, at start-up: a bad path override fails there and not on a delivery. */
export function normalizeWebhookSyncOptions(options: WebhookSyncOptions): ResolvedWebhookSyncOptions {
  const { retry = {}, limits = {}, onEvent } = options;
  return {
    baseUrl: options.baseUrl,
    tokenFor: options.tokenFor,
    paths: checkEntityPaths(options.paths),
    store: options.store,
    keepDeleted: options.keepDeleted,
    read: options.read ?? {},
    retry: { firstMs: retry.firstMs, capMs: retry.capMs, max: retry.max ?? 12 },
    limits: { concurrency: limits.concurrency ?? 4, maxWaitMs: limits.maxWaitMs, timeoutMs: limits.timeoutMs },
    reconcileEveryMs: options.reconcileEveryMs,
    dispatcher: options.dispatcher,
    signal: options.signal,
    now: options.now ?? Date.now,
    onEvent: (event) => onEvent?.(event),
    telemetry: options.telemetry ?? noTelemetry,
  };
}
