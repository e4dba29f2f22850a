import { lstat, rename, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { LedgerhookError } from '../../errors.js';
import { changeLogPath } from './change-log.js';
import type { FileStoreRecord, StateFile, StateRecords } from './file-store-state.js';
import { removeStaleTempFiles } from './stale-temp-files.js';
import { PROCESS_FILE_SUFFIXES } from './temp-name.js';

/**
 * Moves the datasets of one output directory whose files are not where identity.ts names them now
 * (an earlier layout: `expenses%3Ftype=PENDING.json`, a user directory `Alice/`) to their names, on
 * the first use of the directory. Driven by the state, never by guessing from names: each record
 * says where its file is (`file`) and whose it is; the new place follows from its userId and
 * dataset. Under the state file's lock (every writer of records takes it), so two runs never move
 * one file, and each step is a rename that a crash leaves done or not: the next run goes on from
 * there (a step whose source is gone is done) and writes the records' new places last.
 *
 * Nothing is guessed: when both an old and a new name exist, or two records' files (or two users'
 * directories) are one on this file system (names differing only in case on macOS or Windows),
 * nothing moves and the run stops in one line.
 */
export async function migrateLayout(
  stateFile: StateFile,
  /** The output directory (resolved), and how its record keys start (outDirKey). */
  outDir: { path: string; key: string },
  fileFor: (record: FileStoreRecord) => string,
): Promise<void> {
  const moves = (records: StateRecords) =>
    Object.entries(records).filter(
      ([key, record]) => key.startsWith(outDir.key) && movable(record, outDir.path) && record.file !== target(record),
    );
  /** Where the record's file goes: undefined for a userId or dataset that names no file (left alone). */
  const target = (record: FileStoreRecord): string | undefined => {
    try {
      return fileFor(record);
    } catch {
      return undefined;
    }
  };
  // The usual case, nothing to move, costs one read of the state and no lock.
  if (moves(await stateFile.read()).length === 0) return;
  await stateFile.update(async (records) => {
    const due = moves(records);
    if (due.length === 0) return { write: false, result: undefined };
    await refuseShared(Object.entries(records).filter(([key]) => key.startsWith(outDir.key)));
    for (const [, record] of due) {
      const to = target(record);
      if (to === undefined) continue;
      await moveDataset(record, to);
      record.file = to;
    }
    return { write: true, result: undefined };
  });
}

/**
 * Whether a record's file is where a layout of this output directory puts one: a name in it, or in
 * a user's directory in it, spelt plainly. The state is input like any other: a place elsewhere
 * (a path out of the directory, through `..`) is never moved from.
 */
function movable(record: FileStoreRecord, outDir: string): boolean {
  const file = record.file;
  if (!isAbsolute(file) || normalize(file) !== file || basename(file) === '') return false;
  return (record.userId === '' ? dirname(file) : dirname(dirname(file))) === outDir;
}

function conflict(message: string, path: string): LedgerhookError {
  return new LedgerhookError('ERR_IO', message, { details: { reason: 'layout_conflict', path } });
}

const whose = (record: FileStoreRecord) =>
  `${record.userId === '' ? '' : `${JSON.stringify(record.userId)}'s `}${record.dataset}`;

/**
 * Refuses records whose places are one on this file system though their identities differ: two
 * users whose directories are one, or two datasets whose files are one (told apart by device and
 * inode, as the file system sees them).
 */
async function refuseShared(records: Array<[string, FileStoreRecord]>): Promise<void> {
  const seen = new Map<string, { record: FileStoreRecord; path: string }>();
  for (const [, record] of records) {
    const places: Array<[string, (other: FileStoreRecord) => boolean]> = [
      [dirname(record.file), (other) => other.userId === record.userId],
      [record.file, (other) => other.userId === record.userId && other.dataset === record.dataset],
    ];
    for (const [path, same] of places) {
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      const id = `${info.dev}:${info.ino}`;
      const other = seen.get(id);
      if (other && !same(other.record))
        throw conflict(
          `${other.path} and ${path} are one on this file system (names differing only in case?): it cannot hold both ${whose(other.record)} and ${whose(record)}; nothing was moved`,
          path,
        );
      seen.set(id, { record, path });
    }
  }
}

/**
 * Moves `from` to `to` unless it is gone (moved by a run before) or already there (one entry under
 * two spellings); refuses when both are there.
 */
async function move(from: string, to: string, record: FileStoreRecord): Promise<void> {
  const [source, target] = await Promise.all([lstat(from).catch(() => undefined), lstat(to).catch(() => undefined)]);
  if (!source || (target && target.dev === source.dev && target.ino === source.ino)) return;
  if (target)
    throw conflict(
      `cannot move ${from} to ${to}, the name that now holds ${whose(record)}: both exist, and ledgerhook will not guess which holds the data; nothing was moved`,
      to,
    );
  await rename(from, to);
}

/**
 * A dataset's data file and change log to `target`: its user's directory first (with every dataset
 * in it), then the files. A kept full read of the old name is dropped: its record names that name.
 */
async function moveDataset(record: FileStoreRecord, target: string): Promise<void> {
  const from = record.file;
  if (dirname(from) !== dirname(target)) await move(dirname(from), dirname(target), record);
  const moved = join(dirname(target), basename(from));
  if (moved !== target) {
    await move(moved, target, record);
    await move(changeLogPath(moved), changeLogPath(target), record);
  }
  await removeStaleTempFiles(dirname(target), basename(from), PROCESS_FILE_SUFFIXES);
}
