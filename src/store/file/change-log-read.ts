import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { captureLines } from '../../capture/capture-lines.js';
import { LedgerhookError } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import { type HistoryEntry, historyEntryFrom } from '../dataset-history.js';
import { DATA_FILE_MODE } from './data-file.js';
import { notRegular, openRegular } from './regular-file.js';

/*
 * Reading back a change log (change-log.ts) as captures are read (capture-lines.ts): streamed, a
 * line over the cap skipped and counted, a run of zero bytes (a hole) skipped. The log is only ever
 * a regular file, opened without following a symlink (regular-file.ts).
 */

/** The log opened as a regular file (regular-file.ts); undefined when a log to read is not there. */
export async function openLog(path: string, flags: number): Promise<FileHandle | undefined> {
  try {
    return await openRegular(path, flags, DATA_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (flags & constants.O_CREAT) === 0) return undefined;
    if (notRegular(error))
      throw new LedgerhookError(
        'ERR_IO',
        `${path} is not a regular file (a symlink, a device or a pipe); nothing was read from or written to it`,
        { details: { reason: 'not_a_regular_file', path } },
      );
    throw error;
  }
}

export interface Marker {
  run: string;
  at: string;
  committed: boolean;
}

/**
 * The log's lines from byte `from` as JSON values, bounded as captures are read. `skipped` counts
 * what is not a line of the log: too long, or not JSON (a torn last line after a crash); holes and
 * blank lines are nothing. From a byte other than 0, the first line is a part and is not read
 * (captureLines passes over it).
 */
export async function* logValues(path: string, from: number, skipped?: { lines: number }): AsyncGenerator<unknown> {
  const handle = await openLog(path, constants.O_RDONLY);
  if (!handle) return;
  try {
    for await (const line of captureLines(handle, from)) {
      if (line.kind === 'skipped') {
        if (!line.zeros && skipped) skipped.lines += 1;
        continue;
      }
      if (line.text.replaceAll('\0', '').trim() === '') continue;
      try {
        yield JSON.parse(line.text);
      } catch {
        if (skipped) skipped.lines += 1;
      }
    }
  } finally {
    await handle.close();
  }
}

const markerOf = (value: unknown): Marker | undefined =>
  isObject(value) && typeof value.committed === 'boolean' && typeof value.run === 'string'
    ? { run: value.run, at: String(value.at ?? ''), committed: value.committed }
    : undefined;

/** The runs whose markers say committed (from byte `from`), and the state's own runs. */
async function committedRuns(path: string, from: number, stateRuns: readonly (string | undefined)[]) {
  const markers: Marker[] = [];
  for await (const value of logValues(path, from)) {
    const marker = markerOf(value);
    if (marker) markers.push(marker);
  }
  const committed = new Set(markers.filter((marker) => marker.committed).map((marker) => marker.run));
  for (const run of stateRuns) if (run) committed.add(run);
  return { committed, markers };
}

/**
 * Each committed entry from byte `from`, oldest first, handed to `take`: the markers are read in a
 * first pass (a run's marker comes after its entries), so that only what is kept is held. Returns
 * the markers and the lines skipped.
 */
export async function eachCommitted(
  path: string,
  from: number,
  stateRuns: readonly (string | undefined)[],
  take: (entry: HistoryEntry) => void,
): Promise<{ markers: Marker[]; skipped: number }> {
  const { committed, markers } = await committedRuns(path, from, stateRuns);
  const skipped = { lines: 0 };
  for await (const value of logValues(path, from, skipped)) {
    if (markerOf(value)) continue;
    const entry = historyEntryFrom(value);
    if (entry && committed.has(entry.run)) take(entry);
  }
  return { markers, skipped: skipped.lines };
}
