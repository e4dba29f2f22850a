import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { idKey, type ItemId } from '../../dataset/item-id.js';
import { isObject } from '../../util/is-object.js';
import type { HistoryEntry } from '../dataset-history.js';
import { eachCommitted, logValues, openLog } from './change-log-read.js';
import { DATA_FILE_MODE } from './data-file.js';
import { writeFailed } from './write-failed.js';
import { tempFileName } from './temp-name.js';

/**
 * The file store's change log: beside each data file, `<name>.changes.jsonl`, one JSON
 * line per committed change (upsert or delete, with its run, cause, delivery and page) and one marker
 * line per run. A run's lines are appended and fsynced BEFORE its data is put in place and its
 * marker after, so a crash never loses a committed change: a run's lines count when its marker says
 * committed, or when it is the run the state committed (a crash between rename and marker). Data
 * files end in `.json`, so no dataset's file is ever a log's name. Read back with bounds
 * (change-log-read.ts), and only ever a regular file.
 */
export function changeLogPath(dataFile: string): string {
  return `${dataFile.replace(/\.json$/, '')}.changes.jsonl`;
}

const NEWLINE = 0x0a;

async function append(path: string, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  try {
    const handle = await openLog(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
    if (!handle) return;
    try {
      // A last line cut short (a crash mid-append) must not swallow the first line appended now.
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      const cut = size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== NEWLINE;
      await handle.write(`${cut ? '\n' : ''}${lines.join('\n')}\n`);
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

/** What to read of a log: one id's versions, or the last `last` changes (read from the end). */
export interface HistoryQuery {
  id?: ItemId | undefined;
  last?: number | undefined;
}

/** How much of the log's end `last` reads first; four times more each time it finds too few. */
const FIRST_WINDOW = 256 * 1024;

/** The last `last` committed entries: windows from the end, each four times the one before, until enough. */
async function lastCommitted(path: string, stateRuns: readonly (string | undefined)[], last: number) {
  const handle = await openLog(path, constants.O_RDONLY);
  if (!handle) return { entries: [], skipped: 0 };
  const size = await handle
    .stat()
    .then((info) => info.size)
    .finally(() => handle.close());
  for (let window = FIRST_WINDOW; ; window *= 4) {
    const from = Math.max(0, size - window);
    // The newest `last` so far, cut back once twice as many are held (no shift per entry).
    let entries: HistoryEntry[] = [];
    const { skipped } = await eachCommitted(path, from, stateRuns, (entry) => {
      entries.push(entry);
      if (entries.length >= 2 * last) entries = entries.slice(-last);
    });
    entries = entries.slice(-last);
    if (entries.length >= last || from === 0) return { entries, skipped };
  }
}

/**
 * Committed entries, oldest first: of one id, the last `last`, or all. `stateRuns` are the runs the
 * state committed last (and a pending one). `skipped`: lines of the log that were not read.
 */
export async function readHistory(
  path: string,
  stateRuns: readonly (string | undefined)[],
  query: HistoryQuery = {},
): Promise<{ entries: HistoryEntry[]; skipped: number }> {
  const { id, last } = query;
  if (id === undefined && last !== undefined) return lastCommitted(path, stateRuns, last);
  const key = id === undefined ? undefined : idKey(id);
  const entries: HistoryEntry[] = [];
  const { skipped } = await eachCommitted(path, 0, stateRuns, (entry) => {
    if (key === undefined || idKey(entry.id) === key) entries.push(entry);
  });
  return { entries, skipped };
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
function isDue(head: unknown, cutoff: string): boolean {
  if (!isObject(head)) return false;
  if (typeof head.keptSince === 'string') return Date.parse(head.keptSince) + DAY_MS <= Date.parse(cutoff);
  return typeof head.at === 'string' && head.at < cutoff;
}

/**
 * Drops what is older than `cutoff` (ISO), except current tombstones, which are kept as long as the
 * dataset is: rewritten under a temp name and renamed, only when the first line is older than that
 * (or the last prune was a day or more before it). Lines that were not read are not kept.
 */
export async function pruneChangeLog(
  path: string,
  cutoff: string,
  stateRuns: readonly (string | undefined)[],
): Promise<void> {
  let head: unknown;
  for await (const value of logValues(path, 0)) {
    head = value;
    break;
  }
  if (!isDue(head, cutoff)) return;
  const committed: HistoryEntry[] = [];
  const { markers } = await eachCommitted(path, 0, stateRuns, (entry) => committed.push(entry));
  const tombstones = new Set(foldTombstones(committed));
  const kept = committed.filter((entry) => entry.at >= cutoff || tombstones.has(entry));
  const runs = new Set(kept.map((entry) => entry.run));
  const temp = join(dirname(path), tempFileName(basename(path)));
  try {
    const handle = await open(temp, 'wx', DATA_FILE_MODE);
    try {
      const keptMarkers = markers.filter((marker) => marker.committed && runs.has(marker.run));
      // The head says since when the log was pruned: kept tombstones older than that do not make every
      // later commit prune again (at most once a day).
      const lines = [
        JSON.stringify({ keptSince: cutoff }),
        ...kept.map((entry) => JSON.stringify(entry)),
        ...keptMarkers.map((marker) => JSON.stringify(marker)),
      ];
      // Every run kept is committed: the state's own run gets a marker here if it had none.
      for (const run of runs)
        if (!keptMarkers.some((marker) => marker.run === run))
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
