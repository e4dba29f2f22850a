import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { idKey, type ItemId } from '../../dataset/item-id.js';
import { isObject } from '../../util/is-object.js';
import { readLines } from '../../util/read-lines.js';
import { type HistoryEntry, historyEntryFrom } from '../dataset-history.js';
import { DATA_FILE_MODE } from './data-file.js';
import { writeFailed } from './write-failed.js';
import { tempFileName } from './temp-name.js';

/**
 * The file store's change log (issue #21): beside each data file, `<name>.changes.jsonl`, one JSON
 * line per committed change (upsert or delete, with its run, cause, delivery and page) and one marker
 * line per run. A run's lines are appended and fsynced BEFORE its data is put in place and its
 * marker after, so a crash never loses a committed change: a run's lines count when its marker says
 * committed, or when it is the run the state committed (a crash between rename and marker). Data
 * files end in `.json`, so no dataset's file is ever a log's name.
 */
export function changeLogPath(dataFile: string): string {
  return `${dataFile.replace(/\.json$/, '')}.changes.jsonl`;
}

async function append(path: string, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  try {
    const handle = await open(path, 'a', DATA_FILE_MODE);
    try {
      await handle.write(`${lines.join('\n')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw writeFailed(path, error);
  }
}

export const appendChanges = (path: string, entries: readonly HistoryEntry[]) =>
  append(
    path,
    entries.map((entry) => JSON.stringify(entry)),
  );

export const markRun = (path: string, run: string, at: string, committed: boolean) =>
  append(path, [JSON.stringify({ run, at, committed })]);

interface LogContents {
  entries: HistoryEntry[];
  committed: Set<string>;
  markers: Array<{ run: string; at: string; committed: boolean }>;
}

async function readLog(path: string, keep: (entry: HistoryEntry) => boolean): Promise<LogContents> {
  const contents: LogContents = { entries: [], committed: new Set(), markers: [] };
  try {
    await stat(path);
  } catch {
    return contents;
  }
  for await (const line of readLines(path)) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // a torn last line after a crash: its run never got a marker
    }
    if (isObject(value) && typeof value.committed === 'boolean' && typeof value.run === 'string') {
      contents.markers.push({ run: value.run, at: String(value.at ?? ''), committed: value.committed });
      if (value.committed) contents.committed.add(value.run);
      continue;
    }
    const entry = historyEntryFrom(value);
    if (entry && keep(entry)) contents.entries.push(entry);
  }
  return contents;
}

/** Committed entries, oldest first: of one id, or all. `stateRun` is the run the state committed last. */
export async function readHistory(
  path: string,
  stateRuns: readonly (string | undefined)[],
  id?: ItemId,
): Promise<HistoryEntry[]> {
  const key = id === undefined ? undefined : idKey(id);
  const log = await readLog(path, (entry) => key === undefined || idKey(entry.id) === key);
  for (const run of stateRuns) if (run) log.committed.add(run);
  return log.entries.filter((entry) => log.committed.has(entry.run));
}

/** The current tombstones: each id's last committed entry, when it is a kept delete (not revived since). */
export function foldTombstones(entries: readonly HistoryEntry[]): HistoryEntry[] {
  const last = new Map<string, HistoryEntry>();
  for (const entry of entries) last.set(idKey(entry.id), entry);
  return [...last.values()].filter(
    (entry) => entry.op === 'delete' && (entry.item !== undefined || entry.reason !== undefined),
  );
}

const DAY_MS = 86_400_000;

/** Whether a log whose first line is `first` holds something older than `cutoff` worth a rewrite. */
function isDue(first: string, cutoff: string): boolean {
  let head: { at?: unknown; keptSince?: unknown };
  try {
    head = JSON.parse(first) as typeof head;
  } catch {
    return false;
  }
  if (typeof head.keptSince === 'string') return Date.parse(head.keptSince) + DAY_MS <= Date.parse(cutoff);
  return typeof head.at === 'string' && head.at < cutoff;
}

/**
 * Drops what is older than `cutoff` (ISO), except current tombstones, which are kept as long as the
 * dataset is: rewritten under a temp name and renamed, only when the first line is older than that
 * (or the last prune was a day or more before it).
 */
export async function pruneChangeLog(
  path: string,
  cutoff: string,
  stateRuns: readonly (string | undefined)[],
): Promise<void> {
  let first: string | undefined;
  try {
    for await (const line of readLines(path)) {
      first = line;
      break;
    }
  } catch {
    return; // no log yet
  }
  if (first === undefined || !isDue(first, cutoff)) return;
  const log = await readLog(path, () => true);
  for (const run of stateRuns) if (run) log.committed.add(run);
  const committed = log.entries.filter((entry) => log.committed.has(entry.run));
  const tombstones = new Set(foldTombstones(committed));
  const kept = committed.filter((entry) => entry.at >= cutoff || tombstones.has(entry));
  const runs = new Set(kept.map((entry) => entry.run));
  const temp = join(dirname(path), tempFileName(basename(path)));
  try {
    const handle = await open(temp, 'wx', DATA_FILE_MODE);
    try {
      const markers = log.markers.filter((marker) => marker.committed && runs.has(marker.run));
      // The head says since when the log was pruned: kept tombstones older than that do not make every
      // later commit prune again (at most once a day).
      const lines = [
        JSON.stringify({ keptSince: cutoff }),
        ...kept.map((entry) => JSON.stringify(entry)),
        ...markers.map((marker) => JSON.stringify(marker)),
      ];
      // Every run kept is committed: the state's own run gets a marker here if it had none.
      for (const run of runs)
        if (!markers.some((marker) => marker.run === run))
          lines.push(JSON.stringify({ run, at: cutoff, committed: true }));
      await handle.write(`${lines.join('\n')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailed(path, error);
  }
}
