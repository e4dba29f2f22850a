import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isObject } from '../../util/is-object.js';
import { isReadCheckpoint, type ReadCheckpoint, type TakenCheckpoint } from '../read-checkpoint.js';
import { RECORD_FILE_BYTES, RecordFileWriter, recordText } from './checkpoint-record-file.js';
import { DATA_FILE_MODE } from './data-file.js';
import { writeFailed } from './write-failed.js';
import type { StagedMark } from './full-read-writer.js';
import { openRegular } from './regular-file.js';
import { type KeptBytes, readKept } from './staged-bytes.js';
import { alive } from './stale-temp-files.js';
import { CHECKPOINT_SUFFIX, STAGING_SUFFIX, tempFileName, tempFileOwner } from './temp-name.js';

/**
 * The file store's checkpoints of full reads. Beside the data file, a run keeps its pages
 * in a staging file (`.<file>.<pid>.<nonce>.staging`, the data file's format, written as pages come)
 * and, after each page that has a next one, a small record (`.<file>.<pid>.<nonce>.checkpoint`,
 * two slots written in turn: a crash leaves the old record or the new one; checkpoint-record-file.ts) of how many bytes of the
 * staging file are good, their checksum (file-checksum.ts), and where the read stands. A later run takes a record whose
 * process is gone by renaming it to its own name (rename is atomic: of two runs, one wins), checks the
 * staging file against it, cuts it back to the recorded length and goes on. One record per run, a
 * few hundred bytes: bounded.
 */

/** Files of this process's live loads: another run in the same process neither takes nor sweeps them. */
const held = new Set<string>();

interface CheckpointRecord {
  version: 1;
  /** The staging file's name (in the same directory). */
  staging: string;
  staged: StagedMark;
  read: ReadCheckpoint;
}

function isStagedMark(value: unknown): value is StagedMark {
  return (
    isObject(value) &&
    Number.isSafeInteger(value.bytes) &&
    (value.bytes as number) >= 2 &&
    Number.isSafeInteger(value.items) &&
    typeof value.checksum === 'string' &&
    typeof value.ascending === 'boolean' &&
    (value.lastId === null || typeof value.lastId === 'number' || typeof value.lastId === 'string')
  );
}

/** The record, or undefined when it is not one (or names a staging file that is not this dataset's). */
function parseRecord(text: string, fileName: string): CheckpointRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.version !== 1 || typeof value.staging !== 'string') return undefined;
  // Input like any other: only a staging name of this very file, never a path elsewhere.
  if (tempFileOwner(value.staging, fileName, STAGING_SUFFIX) === undefined) return undefined;
  if (!isStagedMark(value.staged) || !isReadCheckpoint(value.read)) return undefined;
  return value as unknown as CheckpointRecord;
}

/** The record (a regular file of at most two slots, never read through a symlink), or undefined. */
async function readRecord(path: string, fileName: string): Promise<CheckpointRecord | undefined> {
  const handle = await openRegular(path, constants.O_RDONLY);
  const buffer = Buffer.alloc(RECORD_FILE_BYTES);
  let read: number;
  try {
    if ((await handle.stat()).size > RECORD_FILE_BYTES) return undefined;
    ({ bytesRead: read } = await handle.read(buffer, 0, RECORD_FILE_BYTES, 0));
  } finally {
    await handle.close();
  }
  const text = recordText(buffer.subarray(0, read));
  return text === undefined ? undefined : parseRecord(text, fileName);
}

/** The staging file's bytes up to `staged.bytes`, or why they are not what was recorded. */
async function checkStaging(path: string, staged: StagedMark): Promise<KeptBytes | string> {
  const kept = await readKept(path, staged.bytes);
  if (typeof kept === 'string') return kept;
  if (kept.items !== staged.items || kept.checksum.toString() !== staged.checksum)
    return `its staging file does not match the record (${kept.items} items, ${staged.items} recorded)`;
  return kept;
}

/** One run's checkpoint record and staging file, held by this process while the run lives. */
export class CheckpointSlot {
  readonly path: string;
  readonly stagingPath: string;
  /** The data file's name: the record is written under a temporary name of it (swept when left). */
  readonly #fileName: string;
  readonly #record: RecordFileWriter;

  constructor(path: string, stagingPath: string, fileName: string) {
    this.path = path;
    this.stagingPath = stagingPath;
    this.#fileName = fileName;
    this.#record = new RecordFileWriter(path, DATA_FILE_MODE);
    held.add(path);
    held.add(stagingPath);
  }

  /** A new slot beside `file`, named with this process's pid. */
  static fresh(file: string): CheckpointSlot {
    const nonce = randomBytes(4).toString('hex');
    const at = (suffix: string) => join(dirname(file), tempFileName(basename(file), process.pid, nonce, suffix));
    return new CheckpointSlot(at(CHECKPOINT_SUFFIX), at(STAGING_SUFFIX), basename(file));
  }

  /**
   * Replaces the record in one step: a crash leaves the previous record or this one, never half of
   * one. False when it was not written (too long for its slot): the previous record stands.
   */
  async save(read: ReadCheckpoint, staged: StagedMark): Promise<boolean> {
    const record: CheckpointRecord = { version: 1, staging: basename(this.stagingPath), staged, read };
    // Asynchronous, so that the run writes it while it waits for the next page (read-run.ts). The
    // first record is a temporary file of the data file (one a killed run leaves is swept like any
    // other, stale-temp-files.ts) renamed into place; each later one is one write into a slot.
    try {
      return await this.#record.write(JSON.stringify(record), join(dirname(this.path), tempFileName(this.#fileName)));
    } catch (error) {
      throw writeFailed(this.path, error);
    }
  }

  async remove(): Promise<void> {
    await this.#record.close().catch(() => {});
    await rm(this.path, { force: true });
    await rm(this.stagingPath, { force: true });
    this.#forget();
  }

  /** Leaves the record and staging file for a later run (the record's handle closed). */
  async release(): Promise<void> {
    await this.#record.close().catch(() => {});
    this.#forget();
  }

  #forget(): void {
    held.delete(this.path);
    held.delete(this.stagingPath);
  }
}

/** A record this run took: continued through the file store's resumable load, or discarded. */
export class FileTakenCheckpoint implements TakenCheckpoint {
  readonly slot: CheckpointSlot;
  readonly checkpoint: ReadCheckpoint | undefined;
  readonly damaged: string | undefined;
  readonly staged: StagedMark | undefined;
  readonly kept: KeptBytes | undefined;

  private constructor(slot: CheckpointSlot, record: CheckpointRecord | undefined, check: KeptBytes | string) {
    this.slot = slot;
    this.checkpoint = record?.read;
    this.staged = record?.staged;
    this.damaged = typeof check === 'string' ? check : undefined;
    this.kept = typeof check === 'string' ? undefined : check;
  }

  static async open(path: string, fileName: string): Promise<FileTakenCheckpoint> {
    const record = await readRecord(path, fileName).catch(() => undefined);
    const stagingPath = join(dirname(path), record?.staging ?? tempFileName(fileName, 0, '00000000', STAGING_SUFFIX));
    const slot = new CheckpointSlot(path, stagingPath, fileName);
    const check = record ? await checkStaging(stagingPath, record.staged) : 'its record cannot be read';
    return new FileTakenCheckpoint(slot, record, check);
  }

  discard(): Promise<void> {
    return this.slot.remove();
  }

  release(): Promise<void> {
    return this.slot.release();
  }
}

/** Whether a file of that pid and path may be taken or swept: its process is gone, or it is ours and idle. */
const unowned = (path: string, pid: number) => (pid === process.pid ? !held.has(path) : !alive(pid));

/**
 * Staging files of runs that are gone and that no record names (a run killed before its first
 * checkpoint): litter. A record that vanishes while being read (another run just took it) stops the
 * sweep: the staging file it names must not be mistaken for litter.
 */
async function sweepStaging(dir: string, fileName: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const named = new Set<string>();
  for (const name of names) {
    if (tempFileOwner(name, fileName, CHECKPOINT_SUFFIX) === undefined) continue;
    try {
      const record = await readRecord(join(dir, name), fileName);
      if (record) named.add(record.staging);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
  }
  for (const name of names) {
    const pid = tempFileOwner(name, fileName, STAGING_SUFFIX);
    if (pid !== undefined && !named.has(name) && unowned(join(dir, name), pid))
      await rm(join(dir, name), { force: true });
  }
}

/** A test's seam: runs right after a record is renamed to this run's name, before it is read. */
export interface TakeHooks {
  afterRename?: (() => Promise<void>) | undefined;
}

/**
 * Takes the checkpoints left beside `file` by runs that are gone and keeps the most advanced one
 * for this run (the others are discarded); undefined when there is none.
 */
export async function takeFileCheckpoint(file: string, hooks: TakeHooks = {}): Promise<TakenCheckpoint | undefined> {
  const dir = dirname(file);
  const fileName = basename(file);
  const names = await readdir(dir).catch(() => [] as string[]);
  const taken: FileTakenCheckpoint[] = [];
  for (const name of names) {
    const pid = tempFileOwner(name, fileName, CHECKPOINT_SUFFIX);
    if (pid === undefined || !unowned(join(dir, name), pid)) continue;
    const mine = join(dir, tempFileName(fileName, process.pid, undefined, CHECKPOINT_SUFFIX));
    // Held before the name exists: it carries this process's pid, so to another run of this process
    // only `held` says it is taken. Marked after the rename (as it was), a run listing the directory
    // in between took it again: both runs had it, sharing one staging file (a loaded machine did it).
    held.add(mine);
    try {
      await rename(join(dir, name), mine);
    } catch {
      held.delete(mine);
      continue; // another run took it first
    }
    await hooks.afterRename?.();
    taken.push(await FileTakenCheckpoint.open(mine, fileName));
  }
  await sweepStaging(dir, fileName);
  const rank = (entry: FileTakenCheckpoint) =>
    entry.checkpoint === undefined ? -2 : entry.damaged === undefined ? entry.checkpoint.pages : -1;
  taken.sort((a, b) => rank(b) - rank(a));
  const [best, ...rest] = taken;
  for (const other of rest) await other.discard();
  return best;
}
