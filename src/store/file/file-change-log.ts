import { idKey, type ItemId } from '../../dataset/item-id.js';
import { changeEntries, type ChangeOrigin, type HistoryEntry } from '../dataset-history.js';
import type { ChangeSet, HistoryOptions } from '../dataset-store.js';
import { appendChanges, changeLogPath, markRun, pruneChangeLog, readHistory } from './change-log.js';
import type { Item } from './data-file.js';
import type { FileStoreRecord } from './file-store-state.js';

const DAY_MS = 86_400_000;

/** The file store's use of its change logs (change-log.ts): record before the commit, mark after, read, prune. */
export class FileChangeLog {
  readonly #days: number;

  constructor(days: number) {
    this.#days = days;
  }

  /** Appends the commit's changes (fsynced), after dropping what is older than the kept days. */
  async record(file: string, record: FileStoreRecord, changes: ChangeSet, removed: readonly Item[]): Promise<void> {
    const origin = changes.origin;
    if (!origin) return;
    const path = changeLogPath(file);
    const cutoff = new Date(Date.parse(origin.at) - this.#days * DAY_MS).toISOString();
    await pruneChangeLog(path, cutoff, [record.run, record.pending?.run]);
    await appendChanges(
      path,
      changeEntries(origin, changes.upserts, removed, {
        keepDeleted: changes.keepDeleted,
        reasons: changes.reasons,
        key: idKey,
      }),
    );
  }

  /** The run's marker once its data and state are committed. */
  committed(file: string, origin: ChangeOrigin): Promise<void> {
    return markRun(changeLogPath(file), origin.run, origin.at, true);
  }

  /** The log's committed entries; `stateRuns`: the runs the dataset's state committed (and a pending one). */
  async history(
    file: string,
    stateRuns: readonly (string | undefined)[],
    id?: ItemId,
    options: HistoryOptions = {},
  ): Promise<HistoryEntry[]> {
    const read = await readHistory(changeLogPath(file), stateRuns, { id, last: options.last });
    if (read.skipped > 0) options.onSkipped?.(read.skipped);
    return read.entries;
  }
}
