import { HttpStatusError, LedgerhookError } from '../errors.js';
import type { DatasetRef, DatasetState, FullReadReason, ReadCheckpoint } from '../store/dataset-store.js';
import { PageSink } from './page-sink.js';
import { paginate } from './paginate.js';
import { cursorNoLongerAccepted, keepsCheckpoints, type ResumePlan, stateStamp, storeLocation } from './resume.js';
import { afterWindow } from './since-window.js';
import {
  pageReadOptions,
  type ResolvedSyncDatasetOptions,
  type SyncProgressEvent,
  type SyncSummary,
} from './sync-options.js';
import { lookBack } from './look-back.js';
import { type SettledStamp, stampToCommit } from './server-stamp.js';
import { changeExtras, removalReasons, startRun } from './change-origin.js';
import type { DatasetSchema } from '../store/dataset-schema.js';
import { SchemaObserver } from './schema-drift.js';
import { schemaBeforeCommit } from './schema-contract.js';
import { isTransientFailure } from './transient.js';
import { traced } from '../telemetry/telemetry.js';
import { countRateLimitWait } from './traced-sync.js';

/** What a run found before reading: the state it goes on from, and the one stored whatever the run. */
export interface ReadStart {
  /** The state an incremental run goes on from; undefined for a full read. */
  state: DatasetState | undefined;
  /** The committed state, even when the run reads in full: what a checkpoint is based on. */
  stored: DatasetState | undefined;
  isDocument: boolean;
  fullReason: FullReadReason;
}

type Emit = (event: SyncProgressEvent) => void;

const stopped = () => new LedgerhookError('ERR_ABORTED', 'stopped');

const syncedAt = (options: ResolvedSyncDatasetOptions) => new Date(options.now()).toISOString();

/**
 * Whether a read that failed keeps its checkpoint: when it was cut off (stopped, the network, the
 * service's 5xx or 429, the store), the next run goes on from it; when the read itself went wrong
 * (an answer that is not a list, a cursor loop, a 401), going on would meet the same answer.
 */
const keepCheckpointAfter = (error: unknown) =>
  (error instanceof LedgerhookError && error.code === 'ERR_ABORTED') || isTransientFailure(error);

/** Only for endpoints known to answer a document (/userTaxSetup): replaced whole each time. */
async function saveDocument(options: ResolvedSyncDatasetOptions, ref: DatasetRef, body: unknown, summary: SyncSummary) {
  const next = { lastUpdatedDate: '', items: 1, syncedAt: syncedAt(options), mode: 'document' as const };
  if (!options.output.dryRun)
    await traced(options.telemetry, 'ledgerhook.store.commit', { 'ledgerhook.store': options.store.kind }, () =>
      options.store.saveDocument(ref, body, { ...next, tokenFingerprint: ref.tokenFingerprint }),
    );
  Object.assign(summary, { mode: 'document', pages: 1, total: 1 });
}

/** Every page was read and checked: the store commits data and state together (or nothing, if stopped). */
async function commitPages(
  options: ResolvedSyncDatasetOptions,
  ref: DatasetRef,
  mode: 'full' | 'incremental',
  sink: PageSink,
  summary: SyncSummary,
  emit: Emit,
  stamps: { stored: string; sent: string; window: boolean } | undefined,
  run: ReturnType<typeof startRun>,
  schema: DatasetSchema | undefined,
) {
  if (summary.lastUpdatedDate === null)
    throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${ref.dataset} returned no page`, {
      details: { reason: 'no_page' },
    });
  if (!options.output.dryRun) emit({ type: 'writing', dataset: ref.dataset });
  if (options.signal?.aborted) throw stopped();
  // A full read stores its first page's stamp; an incremental one (a window's too) judges it
  // against the stored one (server-stamp.ts): never back within what it looked back over.
  const first = summary.lastUpdatedDate;
  const settled: SettledStamp = !stamps
    ? { lastUpdatedDate: first }
    : stamps.window
      ? afterWindow(stamps.stored, stamps.sent, first)
      : stampToCommit(stamps.stored, stamps.sent, first);
  const { lastUpdatedDate } = settled;
  const sent = stamps?.sent;
  const { keepDeleted } = options.output;
  const reasons =
    keepDeleted && mode === 'incremental' && !options.output.dryRun
      ? await removalReasons(pageReadOptions(options), ref, sent, sink.removals())
      : undefined;
  const at = syncedAt(options);
  const extra = changeExtras(run, at, summary.lastUpdatedDate, sink.pageOf, keepDeleted, reasons);
  const commitFacts = { 'ledgerhook.store': options.store.kind, 'ledgerhook.sync.mode': mode };
  const result = await traced(options.telemetry, 'ledgerhook.store.commit', commitFacts, () =>
    sink.commit(
      {
        lastUpdatedDate,
        items: 0,
        syncedAt: at,
        mode,
        tokenFingerprint: ref.tokenFingerprint,
        ...(schema ? { schema } : {}),
      },
      options.output.verify ? { ...extra, verify: true } : extra,
    ),
  );
  Object.assign(summary, { upserted: result.upserted, deleted: result.removed, total: result.total, lastUpdatedDate });
  if (settled.behind) summary.stampBehind = settled.behind;
}

/**
 * One read of a dataset and its commit: from page 1, or on from the checkpoint of `plan`. Returns
 * 'restart' when the server answered the kept cursor with "no longer accepted" before any page.
 */
export async function runRead(
  options: ResolvedSyncDatasetOptions,
  ref: DatasetRef,
  start: ReadStart,
  plan: ResumePlan,
  window: string | undefined,
): Promise<SyncSummary | 'restart'> {
  const { dataset } = ref;
  const emit: Emit = options.onProgress;
  const from = plan.from;
  const mode = from !== undefined || start.state === undefined ? 'full' : 'incremental';
  const why = mode === 'full' && !start.isDocument ? (from?.fullReason ?? start.fullReason) : undefined;
  const since = mode === 'incremental' ? (window ?? start.state?.lastUpdatedDate) : undefined;
  emit({ type: 'start', dataset, mode, since, fullReason: why, location: options.store.location });
  const sent = since === undefined ? undefined : (window ?? lookBack(since, options.read.lagMs));
  const run = startRun(options.now(), options.history.cause, options.history.deliveryId);
  const pages = paginate({
    ...pageReadOptions(options),
    path: ref.path,
    filter: ref.filter,
    allowDocument: start.isDocument,
    lastUpdatedDate: sent,
    cursor: from?.cursor,
    firstIndex: from?.pages,
    // The page before's checkpoint is written while this page is awaited (the two overlap); a stop
    // asked for in that page's event ends the read there, as when the event came before the next page.
    beforeNext: async () => {
      await sink.settle();
      if (options.signal?.aborted) throw stopped();
    },
    onRetry: (event) => {
      if (event.rateLimited) countRateLimitWait(options.telemetry, event.waitMs);
      emit({ type: 'retry', dataset, ...event });
    },
  });
  const summary: SyncSummary = {
    dataset,
    mode,
    pages: from?.pages ?? 0,
    upserted: 0,
    deleted: 0,
    total: 0,
    lastUpdatedDate: from?.lastUpdatedDate ?? null,
    dryRun: options.output.dryRun,
    ...(why ? { fullReason: why } : {}),
    ...(from?.quirks.length ? { quirks: [...from.quirks] } : {}),
    ...(from ? { resumed: { fromPage: from.pages + 1, itemsKept: from.items } } : {}),
    ...(plan.discarded ? { resumeDiscarded: plan.discarded } : {}),
    ...(window ? { since: window } : {}),
    runId: run.run,
  };
  const resumable = mode === 'full' && keepsCheckpoints(options, start.isDocument);
  const sink = new PageSink(options.store, ref, mode, options.output.dryRun, {
    resumable,
    taken: plan.taken,
    received: from?.items,
  });
  // What every checkpoint of this read says besides where it stands.
  const base = {
    baseUrl: ref.baseUrl,
    userId: ref.userId,
    dataset,
    filter: { ...ref.filter },
    tokenFingerprint: ref.tokenFingerprint,
    limit: options.read.limit,
    location: storeLocation(options),
    basedOn: from ? from.basedOn : stateStamp(start.stored),
    fullReason: why ?? 'first-sync',
  } satisfies Partial<ReadCheckpoint>;
  let fetched = 0;
  const observed = new SchemaObserver();
  try {
    for await (const item of pages) {
      if (item.kind === 'document') {
        await saveDocument(options, ref, item.body, summary);
        emit({ type: 'done', summary });
        return summary;
      }
      fetched += 1;
      summary.pages += 1;
      if (item.quirk && !summary.quirks?.includes(item.quirk)) summary.quirks = [...(summary.quirks ?? []), item.quirk];
      summary.lastUpdatedDate ??= item.page.lastUpdatedDate;
      await sink.add(item.page, item.bytes);
      observed.observe(item.page.data);
      const cursor = item.page.cursor;
      const { received: itemsSoFar, deletedSoFar } = sink;
      const page = summary.pages;
      const items = item.page.data.length;
      const report = (kept: boolean) =>
        emit({ type: 'page', dataset, page, items, itemsSoFar, deletedSoFar, ...(kept ? { kept } : {}) });
      // Not awaited here but before the next page is handed over or the one after requested
      // (beforeNext): the page's event says kept once it is.
      if (cursor !== undefined && sink.keepsCheckpoints) {
        const { lastUpdatedDate } = summary;
        const at = { ...base, cursor, pages: page, items: itemsSoFar, lastUpdatedDate, quirks: summary.quirks ?? [] };
        sink.checkpointBehind({ ...at, savedAt: syncedAt(options) }, report);
      } else report(false);
      if (options.signal?.aborted) throw stopped();
    }
    await sink.settle();
    const stored = mode === 'incremental' ? start.state?.lastUpdatedDate : undefined;
    // A continued read saw only its own pages: it cannot call a field missing from the dataset.
    const schema = start.stored?.mode === 'document' ? undefined : start.stored?.schema;
    const next = schemaBeforeCommit(
      schema,
      observed,
      mode === 'full' && from === undefined,
      options.output.contract,
      summary,
    );
    await commitPages(
      options,
      ref,
      mode,
      sink,
      summary,
      emit,
      stored !== undefined && sent !== undefined ? { stored, sent, window: window !== undefined } : undefined,
      run,
      next,
    );
    emit({ type: 'done', summary });
    return summary;
  } catch (error) {
    // Only the answer to the kept cursor itself says it expired; a later failure is the read's own.
    const expired =
      from !== undefined && fetched === 0 && cursorNoLongerAccepted(error, options.read.expiredCursorStatuses);
    const keep = !expired && keepCheckpointAfter(error);
    await sink.abort(keep).catch(() => {});
    if (expired) {
      emit({ type: 'resume-discarded', dataset, reason: 'invalid-cursor', pages: from.pages, detail: error.message });
      return 'restart';
    }
    // An answer to the kept cursor that is not counted as "expired": the next run would send it again.
    if (keep && from !== undefined && fetched === 0 && error instanceof HttpStatusError)
      error.details.resumedAtPage = from.pages + 1;
    throw error;
  }
}
