import { entityAtPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { LedgerhookError } from '../errors.js';
import type { FetchJsonOptions } from '../http/fetch-json.js';
import type { DatasetRef, DatasetState, DatasetStore, FullReadReason } from '../store/dataset-store.js';
import { datasetKey, normaliseBaseUrl, tokenFingerprint } from '../store/identity.js';
import { accessBeforeOwner } from './access-before-owner.js';
import { DEFAULT_RETRY_POLICY } from '../http/retry-policy.js';
import type { EnvelopeQuirk } from '../dataset/envelope.js';
import { explainEntityNotFound } from './entity-not-found.js';
import { PageSink } from './page-sink.js';
import { paginate } from './paginate.js';
import { changeExtras, removalReasons, startRun } from './change-origin.js';
import { lookBack } from './look-back.js';
import type { ChangeCause } from '../store/dataset-history.js';
import type { DatasetSchema } from '../store/dataset-schema.js';
import { SchemaObserver, type SchemaDrift } from './schema-drift.js';
import { type SchemaContract, schemaBeforeCommit } from './schema-contract.js';

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
  | { type: 'page'; dataset: string; page: number; items: number; itemsSoFar: number; deletedSoFar: number }
  | {
      type: 'retry';
      dataset: string;
      attempt: number;
      waitMs: number;
      reason: string;
      /** A 429: the service's rate limit, ridden out within the wait budget. */
      rateLimited?: boolean | undefined;
    }
  | { type: 'writing'; dataset: string }
  | { type: 'done'; summary: SyncSummary };

export interface SyncDatasetOptions
  extends Pick<
    FetchJsonOptions,
    'dispatcher' | 'signal' | 'retry' | 'backoff' | 'sleep' | 'timeoutMs' | 'maxResponseBytes'
  > {
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
  limit?: number | undefined;
  /** Ignore stored state and rebuild from a full read. */
  full?: boolean | undefined;
  /** Fetch and report, write nothing (no data, no state). */
  dryRun?: boolean | undefined;
  /**
   * How long one request may wait out 429 and 5xx answers in all (honouring Retry-After) before the
   * sync stops; default 5 minutes. A multi-page read keeps its pages across the wait.
   */
  maxWaitMs?: number | undefined;
  /** Stop with an error after this many pages (an endless cursor chain). */
  maxPages?: number | undefined;
  /**
   * Look back this far past the stored lastUpdatedDate (default 0): items changed at the boundary are
   * read again, which upserts by id make harmless. For a server that filters with a strict `>` at whole
   * seconds, 1000 catches what changed in the same second as the last read. Applied only to an ISO
   * date in UTC (`…Z`), which is what the spec shows; any other value is sent as stored.
   */
  lagMs?: number | undefined;
  /**
   * Keep removed items as tombstones (their last content, when and why they left: deleted, or
   * left the filter) instead of only forgetting them; see change-origin.ts for how the reason is found.
   */
  keepDeleted?: boolean | undefined;
  /** What caused this run, for the history: a plain sync (default), a webhook (and its delivery id). */
  cause?: ChangeCause | undefined;
  deliveryId?: string | undefined;
  /**
   * When the items' top-level fields or their JSON types drift from those recorded: 'evolve' (the
   * default) reports it in the summary and records them; 'freeze' fails the run, committing nothing.
   */
  contract?: SchemaContract | undefined;
  /** Clock in ms since the epoch (only for syncedAt; lastUpdatedDate always comes from the server). */
  now?: (() => number) | undefined;
  onProgress?: ((event: SyncProgressEvent) => void) | undefined;
}

export interface SyncSummary {
  dataset: string;
  mode: 'full' | 'incremental' | 'document';
  pages: number;
  upserted: number;
  deleted: number;
  total: number;
  lastUpdatedDate: string | null;
  dryRun: boolean;
  /** Set when mode is 'full': why the dataset was read whole. */
  fullReason?: FullReadReason | undefined;
  /** Envelope habits of the server the spec does not show (a last page's cursor null or ""), once each. */
  quirks?: EnvelopeQuirk[] | undefined;
  /** This run's id: its changes carry it in the dataset's history (`run` there). */
  runId?: string | undefined;
  /** The items' fields drifted from those recorded (schema-drift.ts); absent when nothing did. */
  drift?: SchemaDrift | undefined;
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

const stopped = () => new LedgerhookError('ERR_ABORTED', 'stopped');

const syncedAt = (options: SyncDatasetOptions) => new Date((options.now ?? Date.now)()).toISOString();

type Emit = (event: SyncProgressEvent) => void;

/** The stored state a run goes on from, or none for a full read (a document never keeps one). */
async function startingState(
  options: SyncDatasetOptions,
  ref: DatasetRef,
): Promise<{
  state: DatasetState | undefined;
  isDocument: boolean;
  fullReason: FullReadReason;
  schema: DatasetSchema | undefined;
}> {
  const found = options.store.stateWithReason
    ? await options.store.stateWithReason(ref)
    : { state: await options.store.getState(ref), reason: 'first-sync' as const };
  const stored = found.state;
  const known = entityAtPath(ref.path, options.paths);
  const isDocument = known?.paginated === false;
  const state = options.full || isDocument || stored?.mode === 'document' ? undefined : stored;
  const fullReason = options.full && stored ? 'requested' : 'reason' in found ? found.reason : 'first-sync';
  // A full read on request still compares with the fields recorded; a dataset without a state starts afresh.
  return { state, isDocument, fullReason, schema: stored?.mode === 'document' ? undefined : stored?.schema };
}

/** Only for endpoints known to answer a document (/userTaxSetup): replaced whole each time. */
async function saveDocument(options: SyncDatasetOptions, ref: DatasetRef, body: unknown, summary: SyncSummary) {
  const next = { lastUpdatedDate: '', items: 1, syncedAt: syncedAt(options), mode: 'document' as const };
  if (!options.dryRun) await options.store.saveDocument(ref, body, { ...next, tokenFingerprint: ref.tokenFingerprint });
  Object.assign(summary, { mode: 'document', pages: 1, total: 1 });
}

/** Every page was read and checked: the store commits data and state together (or nothing, if stopped). */
async function commitPages(
  options: SyncDatasetOptions,
  ref: DatasetRef,
  mode: 'full' | 'incremental',
  sink: PageSink,
  summary: SyncSummary,
  emit: Emit,
  run: ReturnType<typeof startRun>,
  since: string | undefined,
  schema: DatasetSchema | undefined,
) {
  if (summary.lastUpdatedDate === null)
    throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${ref.dataset} returned no page`, {
      details: { reason: 'no_page' },
    });
  if (!options.dryRun) emit({ type: 'writing', dataset: ref.dataset });
  if (options.signal?.aborted) throw stopped();
  const keepDeleted = options.keepDeleted === true;
  const reasons =
    keepDeleted && mode === 'incremental' && !options.dryRun
      ? await removalReasons(options, ref, since, sink.removals())
      : undefined;
  const at = syncedAt(options);
  const extra = changeExtras(run, at, summary.lastUpdatedDate, sink.pageOf, keepDeleted, reasons);
  const result = await sink.commit(
    {
      lastUpdatedDate: summary.lastUpdatedDate,
      items: 0,
      syncedAt: at,
      mode,
      tokenFingerprint: ref.tokenFingerprint,
      ...(schema ? { schema } : {}),
    },
    extra,
  );
  Object.assign(summary, { upserted: result.upserted, deleted: result.removed, total: result.total });
}

/**
 * Syncs one dataset into a store (spec 4.3): a full read the first time, then only what changed
 * since the stored lastUpdatedDate. Every page is fetched and checked before the store commits
 * data and state together; a failure or Ctrl-C leaves the previous data and state as they were.
 * The stored lastUpdatedDate is the FIRST page's (the earliest): an item edited while later
 * pages were read is newer than it, so the next run fetches it again instead of losing it.
 */
export async function syncDataset(options: SyncDatasetOptions): Promise<SyncSummary> {
  const ref = datasetRef(options);
  const { dataset, path } = ref;
  const emit: Emit = (event) => options.onProgress?.(event);
  const { state, isDocument, fullReason, schema } = await startingState(options, ref).catch((error: unknown) =>
    accessBeforeOwner(error, { ...options, path, filter: ref.filter }),
  );
  const mode = state ? 'incremental' : 'full';
  const why = mode === 'full' && !isDocument ? fullReason : undefined;
  emit({
    type: 'start',
    dataset,
    mode,
    since: state?.lastUpdatedDate,
    fullReason: why,
    location: options.store.location,
  });

  const since = state ? lookBack(state.lastUpdatedDate, options.lagMs ?? 0) : undefined;
  const run = startRun((options.now ?? Date.now)(), options.cause, options.deliveryId);
  const retry = {
    ...(options.retry ?? DEFAULT_RETRY_POLICY),
    ...(options.maxWaitMs !== undefined ? { maxWaitMs: options.maxWaitMs } : {}),
  };
  const pages = paginate({
    ...options,
    retry,
    path,
    filter: ref.filter,
    allowDocument: isDocument,
    lastUpdatedDate: since,
    onRetry: (event) => emit({ type: 'retry', dataset, ...event }),
  });
  const summary: SyncSummary = {
    dataset,
    mode,
    pages: 0,
    upserted: 0,
    deleted: 0,
    total: 0,
    lastUpdatedDate: null,
    dryRun: Boolean(options.dryRun),
    ...(why ? { fullReason: why } : {}),
    runId: run.run,
  };
  const sink = new PageSink(options.store, ref, mode, Boolean(options.dryRun));
  const observed = new SchemaObserver();
  try {
    for await (const item of pages) {
      if (item.kind === 'document') {
        await saveDocument(options, ref, item.body, summary);
        emit({ type: 'done', summary });
        return summary;
      }
      summary.pages += 1;
      if (item.quirk && !summary.quirks?.includes(item.quirk)) summary.quirks = [...(summary.quirks ?? []), item.quirk];
      summary.lastUpdatedDate ??= item.page.lastUpdatedDate;
      await sink.add(item.page);
      observed.observe(item.page.data);
      const { received: itemsSoFar, deletedSoFar } = sink;
      emit({ type: 'page', dataset, page: summary.pages, items: item.page.data.length, itemsSoFar, deletedSoFar });
      if (options.signal?.aborted) throw stopped();
    }
    const next = schemaBeforeCommit(schema, observed, mode === 'full', options.contract, summary);
    await commitPages({ ...options, retry }, ref, mode, sink, summary, emit, run, since, next);
    emit({ type: 'done', summary });
    return summary;
  } catch (error) {
    throw explainEntityNotFound(error, path, options.paths);
  } finally {
    await sink.abort();
  }
}
