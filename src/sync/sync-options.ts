import type { EntityPaths } from '../catalogue/entity-paths.js';
import type { EnvelopeQuirk } from '../dataset/envelope.js';
import {
  DEFAULT_EXPIRED_CURSOR_STATUSES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STAMP_AHEAD_MS,
  DEFAULT_PAGE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../defaults.js';
import { abortableSleep } from '../http/fetch-json.js';
import {
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type SharedBackoff,
} from '../http/retry-policy.js';
import type { Dispatcher } from 'undici';
import type { PaginateOptions } from './paginate.js';
import type { DatasetRef, DatasetStore, FullReadReason } from '../store/dataset-store.js';
import { datasetKey, normaliseBaseUrl, tokenFingerprint } from '../store/identity.js';
import type { ChangeCause } from '../store/dataset-history.js';
import type { SchemaDrift } from './schema-drift.js';
import type { StampBehind } from './server-stamp.js';
import type { SchemaContract } from './schema-contract.js';
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';
import { refuseMovedOptions } from '../util/moved-options.js';

/**
 * Why an interrupted full read's checkpoint was dropped instead of continued: a full read
 * from page 1 was asked for; it belongs to another access token, server, dataset, page size or store
 * location; a commit has moved the dataset on since it began; what was kept no longer matches its
 * record; or the server no longer accepts its cursor.
 */
export type ResumeDiscardReason =
  | 'requested'
  | 'other-token'
  | 'other-base-url'
  | 'other-dataset'
  | 'other-limit'
  | 'other-location'
  | 'state-changed'
  | 'damaged'
  | 'invalid-cursor';

export type SyncProgressEvent =
  | {
      type: 'start';
      dataset: string;
      mode: 'full' | 'incremental';
      since?: string | undefined;
      /** Why a full read (mode 'full'): never synced into this store's location, asked for, data gone, new token. */
      fullReason?: FullReadReason | undefined;
      /** Where the data goes (output directory, or database and schema). */
      location?: string | undefined;
    }
  | {
      type: 'page';
      dataset: string;
      page: number;
      items: number;
      itemsSoFar: number;
      deletedSoFar: number;
      /**
       * The pages so far are kept with a checkpoint: a run that stops now is continued by the next
       * (after a crash, from the last checkpoint written: Postgres writes them at a cadence).
       */
      kept?: boolean | undefined;
    }
  | {
      type: 'retry';
      dataset: string;
      attempt: number;
      waitMs: number;
      reason: string;
      /** A 429: the service's rate limit, ridden out within the wait budget. */
      rateLimited?: boolean | undefined;
    }
  /** An interrupted full read goes on: `fromPage` is the first page this run fetches. */
  | { type: 'resume'; dataset: string; fromPage: number; itemsKept: number; savedAt: string }
  /** A checkpoint was dropped; `pages` it had kept. */
  | { type: 'resume-discarded'; dataset: string; reason: ResumeDiscardReason; pages: number; detail?: string }
  | { type: 'writing'; dataset: string }
  | { type: 'done'; summary: SyncSummary };

export interface SyncDatasetOptions {
  baseUrl: string;
  token: string;
  path: string;
  filter?: Readonly<Record<string, string>> | undefined;
  /**
   * The entity paths in use where they differ from the catalogue's (`{ expense: '/expenses/expenses' }`):
   * tells which entity `path` is (a document endpoint, which entity a 404 is about).
   */
  paths?: EntityPaths | undefined;
  /** Whose data this is ('' for a plain CLI sync: the token is then the owner). */
  userId?: string | undefined;
  /** Where data and state go (FileStore, PostgresStore...). */
  store: DatasetStore;
  /** What is read, and from where. */
  read?:
    | {
        /** Items per page (default DEFAULT_PAGE_LIMIT). */
        limit?: number | undefined;
        /**
         * Look back this far past the stored lastUpdatedDate (default 0): items changed at the boundary are
         * read again, which upserts by id make harmless. For a server that filters with a strict `>` at whole
         * seconds, 1000 catches what changed in the same second as the last read. Applied to an ISO
         * date-time in the server's own form (`Z`, an offset or no zone); any other value is sent as stored.
         */
        lagMs?: number | undefined;
        /**
         * How far the server's lastUpdatedDate may be ahead of its own clock (its Date header, else `now`)
         * before the run is refused, committing nothing (default DEFAULT_MAX_STAMP_AHEAD_MS, a day; the
         * `maxStampAhead` setting). See server-stamp.ts for what else the server's stamps may do.
         */
        maxStampAheadMs?: number | undefined;
        /**
         * HTTP statuses that, answered to the cursor of a resumed read, mean the server no longer accepts it:
         * the read then starts again from page 1 (default DEFAULT_EXPIRED_CURSOR_STATUSES; any 4xx whose body
         * says the cursor is invalid or expired counts too).
         */
        expiredCursorStatuses?: readonly number[] | undefined;
        /** Ignore stored state and rebuild from a full read (a checkpoint of an interrupted one is dropped). */
        full?: boolean | undefined;
        /**
         * Continue an interrupted full read from its checkpoint, and keep checkpoints as a full read goes
         * (default true, where the store keeps them). False reads from page 1 and keeps none, all or nothing.
         */
        resume?: boolean | undefined;
        /**
         * Re-read the changes since this ISO 8601 date instead of since the stored lastUpdatedDate, merged
         * like an incremental run, for repairs. Needs a stored state; never moves the stored
         * lastUpdatedDate back (nor forward past a gap the window did not cover).
         */
        since?: string | undefined;
      }
    | undefined;
  /** What is written, and how. */
  output?:
    | {
        /**
         * Keep removed items as tombstones (their last content, when and why they left: deleted, or
         * left the filter) instead of only forgetting them; see change-origin.ts for how the reason is found.
         */
        keepDeleted?: boolean | undefined;
        /** Fetch and report, write nothing (no data, no state). */
        dryRun?: boolean | undefined;
        /**
         * Check the stored data in full (the file store reads and checksums its file) even on a run with
         * nothing to merge, where a store that can tell cheaply that its data is as committed (the file
         * store's fingerprint: size, inode, mtime, ctime) skips reading it. A run with changes always checks.
         */
        verify?: boolean | undefined;
        /**
         * When the items' top-level fields or their JSON types drift from those recorded: 'evolve' (the
         * default) reports it in the summary and records them; 'freeze' fails the run, committing nothing.
         */
        contract?: SchemaContract | undefined;
      }
    | undefined;
  /** What one request, and the read as a whole, may take. */
  limits?:
    | {
        /** Per request (each attempt), headers and body together. */
        timeoutMs?: number | undefined;
        maxResponseBytes?: number | undefined;
        /**
         * How long one request may wait out 429 and 5xx answers in all (honouring Retry-After) before the
         * sync stops; default 5 minutes (else `retry`'s own). A multi-page read keeps its pages across the wait.
         */
        maxWaitMs?: number | undefined;
        /** Stop with an error after this many pages (an endless cursor chain). */
        maxPages?: number | undefined;
      }
    | undefined;
  /** How hard each request is tried (default DEFAULT_RETRY_POLICY). */
  retry?: RetryPolicy | undefined;
  /** What caused this run, for the history: a plain sync (default), a webhook (and its delivery id). */
  history?: { cause?: ChangeCause | undefined; deliveryId?: string | undefined } | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** One rate-limit pause shared by the datasets synced together (syncDatasets gives one). */
  backoff?: SharedBackoff | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /**
   * Clock in ms since the epoch: for syncedAt, and to judge the server's lastUpdatedDate when its
   * answer has no Date header (the stamp itself always comes from the server).
   */
  now?: (() => number) | undefined;
  onProgress?: ((event: SyncProgressEvent) => void) | undefined;
  /**
   * Traces and metrics (openTelemetry()): the run as a span with a child per page fetched and one
   * for the store's commit, its duration, pages and 429 waits; default none.
   */
  telemetry?: Telemetry | undefined;
}

/** syncDataset's options with every default applied (reconcileDataset resolves its own through it too). */
export interface ResolvedSyncDatasetOptions
  extends Pick<SyncDatasetOptions, 'baseUrl' | 'token' | 'path' | 'filter' | 'paths' | 'store'> {
  userId: string;
  read: {
    limit: number;
    lagMs: number;
    maxStampAheadMs: number;
    expiredCursorStatuses: readonly number[];
    full: boolean;
    resume: boolean;
    since: string | undefined;
  };
  output: { keepDeleted: boolean; dryRun: boolean; verify: boolean; contract: SchemaContract };
  limits: { timeoutMs: number; maxResponseBytes: number; maxWaitMs: number; maxPages: number };
  /** With limits.maxWaitMs as its budget. */
  retry: RetryPolicy;
  history: { cause: ChangeCause; deliveryId: string | undefined };
  dispatcher: Dispatcher | undefined;
  signal: AbortSignal | undefined;
  backoff: SharedBackoff | undefined;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  onProgress: (event: SyncProgressEvent) => void;
  telemetry: Telemetry;
}

const MOVED_SYNC_OPTIONS = {
  limit: 'read.limit',
  lagMs: 'read.lagMs',
  maxStampAheadMs: 'read.maxStampAheadMs',
  expiredCursorStatuses: 'read.expiredCursorStatuses',
  full: 'read.full',
  resume: 'read.resume',
  since: 'read.since',
  keepDeleted: 'output.keepDeleted',
  dryRun: 'output.dryRun',
  verify: 'output.verify',
  contract: 'output.contract',
  timeoutMs: 'limits.timeoutMs',
  maxResponseBytes: 'limits.maxResponseBytes',
  maxWaitMs: 'limits.maxWaitMs',
  maxPages: 'limits.maxPages',
  cause: 'history.cause',
  deliveryId: 'history.deliveryId',
};

/** Resolved once, when the run starts: nothing inside applies a default again. */
export function normalizeSyncDatasetOptions(options: SyncDatasetOptions): ResolvedSyncDatasetOptions {
  refuseMovedOptions(options, MOVED_SYNC_OPTIONS, 'syncDataset');
  const { read = {}, output = {}, limits = {}, history = {}, onProgress } = options;
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const maxWaitMs = limits.maxWaitMs ?? retry.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  return {
    baseUrl: options.baseUrl,
    token: options.token,
    path: options.path,
    filter: options.filter,
    paths: options.paths,
    userId: options.userId ?? '',
    store: options.store,
    read: {
      limit: read.limit ?? DEFAULT_PAGE_LIMIT,
      lagMs: read.lagMs ?? 0,
      maxStampAheadMs: read.maxStampAheadMs ?? DEFAULT_MAX_STAMP_AHEAD_MS,
      expiredCursorStatuses: read.expiredCursorStatuses ?? DEFAULT_EXPIRED_CURSOR_STATUSES,
      full: read.full === true,
      resume: read.resume !== false,
      since: read.since,
    },
    output: {
      keepDeleted: output.keepDeleted === true,
      dryRun: output.dryRun === true,
      verify: output.verify === true,
      contract: output.contract ?? 'evolve',
    },
    limits: {
      timeoutMs: limits.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      maxResponseBytes: limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxWaitMs,
      maxPages: limits.maxPages ?? DEFAULT_MAX_PAGES,
    },
    retry: { ...retry, maxWaitMs },
    history: { cause: history.cause ?? 'sync', deliveryId: history.deliveryId },
    dispatcher: options.dispatcher,
    signal: options.signal,
    backoff: options.backoff,
    sleep: options.sleep ?? abortableSleep,
    now: options.now ?? Date.now,
    onProgress: (event) => onProgress?.(event),
    telemetry: options.telemetry ?? noTelemetry,
  };
}

/** What a paginated read of this dataset takes from the resolved options (the path and filter are the ref's). */
export function pageReadOptions(
  options: ResolvedSyncDatasetOptions,
): Omit<PaginateOptions, 'path' | 'filter' | 'lastUpdatedDate'> {
  return {
    baseUrl: options.baseUrl,
    token: options.token,
    limit: options.read.limit,
    maxStampAheadMs: options.read.maxStampAheadMs,
    maxPages: options.limits.maxPages,
    timeoutMs: options.limits.timeoutMs,
    maxResponseBytes: options.limits.maxResponseBytes,
    retry: options.retry,
    dispatcher: options.dispatcher,
    signal: options.signal,
    backoff: options.backoff,
    sleep: options.sleep,
    now: options.now,
    telemetry: options.telemetry,
  };
}

export interface SyncSummary {
  /** This run's id: its changes carry it in the dataset's history (`run` there). */
  runId?: string | undefined;
  /** The items' fields drifted from those recorded (schema-drift.ts); absent when nothing did. */
  drift?: SchemaDrift | undefined;
  dataset: string;
  mode: 'full' | 'incremental' | 'document';
  /** Pages of the read; a resumed read counts the pages kept from before as well. */
  pages: number;
  upserted: number;
  deleted: number;
  total: number;
  /** What the state holds after the run (for a full or incremental run, the FIRST page's). */
  lastUpdatedDate: string | null;
  dryRun: boolean;
  /** Set when mode is 'full': why the dataset was read whole. */
  fullReason?: FullReadReason | undefined;
  /** Envelope habits of the server the spec does not show (a last page's cursor null or ""), once each. */
  quirks?: EnvelopeQuirk[] | undefined;
  /** An interrupted full read was continued: this run fetched from page `fromPage` on. */
  resumed?: { fromPage: number; itemsKept: number } | undefined;
  /**
   * After a continued read, the incremental run made at once from its (earliest) lastUpdatedDate:
   * the kept pages were read before this run began, and a change made meanwhile (perhaps announced
   * by a webhook that was coalesced into this very run) is read now, not at some later run.
   */
  catchUp?: { pages: number; upserted: number; deleted: number } | undefined;
  /** A checkpoint was found and dropped (the read went from page 1, or the run was not a full one). */
  resumeDiscarded?: ResumeDiscardReason | undefined;
  /** The window re-read (`since`): changes since this date were merged. */
  since?: string | undefined;
  /**
   * The server's lastUpdatedDate went behind the stored one, past what the run looked back over: its
   * clock or data went back. The server's was stored (so nothing between them is skipped); both named.
   */
  stampBehind?: StampBehind | undefined;
}

/** The ref of a dataset: who, which server, which path and filter. */
export function datasetRef(options: Pick<SyncDatasetOptions, 'baseUrl' | 'token' | 'path' | 'filter' | 'userId'>) {
  const path = `/${options.path.replace(/^\/+/, '')}`;
  const filter = { ...(options.filter ?? {}) };
  const ref: DatasetRef = {
    userId: options.userId ?? '',
    dataset: datasetKey(path, filter),
    path,
    filter,
    baseUrl: normaliseBaseUrl(options.baseUrl),
    tokenFingerprint: tokenFingerprint(options.token),
  };
  return ref;
}
