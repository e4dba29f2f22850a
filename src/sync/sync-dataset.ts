import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Dispatcher } from 'undici';
import { ENTITIES } from '../catalogue/entities.js';
import { LedgerhookError } from '../errors.js';
import { AtomicItemWriter, readItems, writeDocumentAtomically, type Item } from './data-file.js';
import { datasetFileName } from './dataset-file-name.js';
import { compareIds, idKey } from './item-id.js';
import { DEFAULT_LIMIT, paginate, type PaginateOptions } from './paginate.js';
import type { RetryPolicy, SharedBackoff } from './retry-policy.js';
import { FullReadWriter } from './full-read-writer.js';
import { removeStaleTempFiles } from './stale-temp-files.js';
import { datasetKey, type SyncStateRecord, type SyncStateStore } from './state-store.js';

export type SyncProgressEvent =
  | { type: 'start'; dataset: string; mode: 'full' | 'incremental'; since?: string }
  | { type: 'page'; dataset: string; page: number; items: number; itemsSoFar: number; deletedSoFar: number }
  | { type: 'retry'; dataset: string; attempt: number; waitMs: number; reason: string }
  | { type: 'writing'; dataset: string; file: string }
  | { type: 'done'; summary: SyncSummary };

export interface SyncDatasetOptions {
  baseUrl: string;
  token: string;
  path: string;
  filter?: Record<string, string>;
  limit?: number;
  /** Directory of the local JSON files (created if missing). */
  outDir: string;
  /** Ignore stored state and rebuild from a full read. */
  full?: boolean;
  /** Fetch and report, write nothing (no file, no state). */
  dryRun?: boolean;
  store: SyncStateStore;
  /** Keeps the state of several accounts apart (e.g. the userId): part of the state key. */
  scope?: string;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  backoff?: SharedBackoff;
  /** Clock in ms since the epoch (only for syncedAt; lastUpdatedDate always comes from the server). */
  now?: () => number;
  sleep?: PaginateOptions['sleep'];
  onProgress?: (event: SyncProgressEvent) => void;
}

export interface SyncSummary {
  dataset: string;
  mode: 'full' | 'incremental' | 'document';
  pages: number;
  upserted: number;
  deleted: number;
  total: number;
  lastUpdatedDate: string | null;
  file: string;
  dryRun: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/**
 * Syncs one dataset into `<outDir>/<name>.json` (spec 4.3): a full read the first time, then
 * only what changed since the stored lastUpdatedDate. Commit order: every page fetched and
 * checked, the new file written under a temporary name, fsynced and renamed, and only then the
 * state. A crash at any point leaves the old file and state, or the new file with the old state
 * (the next run re-applies the same changes and converges), never a state ahead of its file.
 */
export async function syncDataset(options: SyncDatasetOptions): Promise<SyncSummary> {
  const filter = options.filter ?? {};
  const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
  const key = `${options.scope ? `${options.scope}@` : ''}${datasetKey(options.baseUrl, path, filter)}`;
  // The dataset's name in progress and summaries: its state key without the server.
  const dataset = datasetKey('', path, filter);
  const outDir = resolve(options.outDir);
  const file = join(outDir, datasetFileName(path, filter));
  const emit = (event: SyncProgressEvent) => options.onProgress?.(event);
  if (!options.dryRun) {
    await mkdir(outDir, { recursive: true }).catch((error: Error) => {
      throw new LedgerhookError('ERR_IO', `cannot create ${outDir}: ${error.message}`, { cause: error });
    });
    await removeStaleTempFiles(outDir, datasetFileName(path, filter));
  }
  const stored = options.full ? undefined : options.store.get(key);
  // A state without its file (deleted by hand) would make an incremental run drop everything else.
  const state = stored && (await exists(file)) ? stored : undefined;
  const mode = state ? 'incremental' : 'full';
  emit({ type: 'start', dataset, mode, ...(state ? { since: state.lastUpdatedDate } : {}) });

  const known = ENTITIES.find((entity) => entity.path === path);
  const pages = paginate({
    // A dataset synced as a list before, or one the catalogue knows is paginated, must stay a list.
    allowDocument: !options.store.get(key) && known?.paginated !== true,
    baseUrl: options.baseUrl, token: options.token, path, filter, limit: options.limit ?? DEFAULT_LIMIT,
    ...(state ? { lastUpdatedDate: state.lastUpdatedDate } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    onRetry: (event) => emit({ type: 'retry', dataset, ...event }),
  });

  let fullWriter: FullReadWriter | undefined;
  const changes = new Map<string, Item>();
  const deletedIds = new Set<string>();
  let pageCount = 0;
  let received = 0;
  let lastUpdatedDate: string | undefined;
  try {
    for await (const item of pages) {
      if (item.kind === 'document') {
        // Not an envelope (/userTaxSetup): saved as it is, with no state (there is nothing to resume).
        const summary: SyncSummary = { dataset, mode: 'document', pages: 1, upserted: 0, deleted: 0, total: 1, lastUpdatedDate: null, file, dryRun: Boolean(options.dryRun) };
        if (!options.dryRun) await writeDocumentAtomically(file, item.body);
        emit({ type: 'done', summary });
        return summary;
      }
      const page = item.page;
      pageCount += 1;
      received += page.data.length;
      lastUpdatedDate = page.lastUpdatedDate;
      if (mode === 'full') {
        fullWriter ??= await FullReadWriter.create(file, Boolean(options.dryRun));
        await fullWriter.add(page.data as Item[]);
      } else {
        for (const entry of page.data) changes.set(idKey(entry.id), entry as Item);
        for (const id of page.deletedIds ?? []) deletedIds.add(idKey(id));
      }
      emit({ type: 'page', dataset, page: pageCount, items: page.data.length, itemsSoFar: received, deletedSoFar: deletedIds.size });
      if (options.signal?.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped');
    }
    if (lastUpdatedDate === undefined) throw new LedgerhookError('ERR_BAD_RESPONSE', `GET ${dataset} returned no page`);

    let total = 0;
    let upserted = 0;
    let removed = 0;
    if (!options.dryRun) emit({ type: 'writing', dataset, file });
    if (mode === 'full') {
      // Every page arrived and was checked: only now does the new file replace the old one.
      fullWriter ??= await FullReadWriter.create(file, Boolean(options.dryRun));
      total = upserted = await fullWriter.commit();
      fullWriter = undefined;
    } else {
      const writer = options.dryRun ? undefined : await AtomicItemWriter.create(file);
      try {
        ({ total, upserted, removed } = await mergeChanges(file, changes, deletedIds, writer));
        if (options.signal?.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped');
        await writer?.commit();
      } catch (error) {
        await writer?.discard();
        throw error;
      }
    }
    const summary: SyncSummary = { dataset, mode, pages: pageCount, upserted, deleted: removed, total, lastUpdatedDate, file, dryRun: Boolean(options.dryRun) };
    if (!options.dryRun) {
      const record: SyncStateRecord = {
        baseUrl: options.baseUrl.replace(/\/+$/, ''), path, filter, lastUpdatedDate, mode,
        syncedAt: new Date((options.now ?? Date.now)()).toISOString(), items: total, file,
      };
      options.store.set(key, record);
    }
    emit({ type: 'done', summary });
    return summary;
  } finally {
    await fullWriter?.discard();
  }
}

/**
 * One streaming pass over the old (sorted) file and the sorted changes: an id in `data` is
 * upserted (and stays even if deletedIds names it too, since data is its current state); an id
 * only in deletedIds is dropped.
 */
async function mergeChanges(file: string, changes: Map<string, Item>, deletedIds: Set<string>, writer: AtomicItemWriter | undefined): Promise<{ total: number; upserted: number; removed: number }> {
  const sorted = [...changes.values()].sort((a, b) => compareIds(a.id, b.id));
  let next = 0;
  let total = 0;
  let removed = 0;
  let previous: Item['id'] | undefined;
  // write() returns a promise only when its buffer is flushed: no await (and no tick) per item.
  const put = (item: Item) => {
    total += 1;
    return writer?.write(item);
  };
  const flush = async (pending: Promise<void> | undefined) => {
    if (pending) await pending;
  };
  for await (const old of readItems(file)) {
    if (previous !== undefined && compareIds(previous, old.id) >= 0) {
      throw new LedgerhookError('ERR_IO', `${file} is not sorted by id (id ${String(old.id)} after ${String(previous)}); run with --full to rebuild it`);
    }
    previous = old.id;
    while (next < sorted.length && compareIds(sorted[next]!.id, old.id) < 0) await flush(put(sorted[next++]!));
    if (next < sorted.length && compareIds(sorted[next]!.id, old.id) === 0) {
      const pending = put(sorted[next++]!);
      if (pending) await pending;
    } else if (deletedIds.has(idKey(old.id))) {
      removed += 1;
    } else {
      const pending = put(old);
      if (pending) await pending;
    }
  }
  while (next < sorted.length) await flush(put(sorted[next++]!));
  return { total, upserted: sorted.length, removed };
}
