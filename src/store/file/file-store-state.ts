import { open, readFile, rename, rm } from 'node:fs/promises';
import { errnoSentence, makeDirectory } from '../../util/fs-errors.js';
import { basename, dirname, join } from 'node:path';
import { type LeaseOptions, LockLease } from './lock-lease.js';
import { LedgerhookError } from '../../errors.js';
import { tempFileName } from './temp-name.js';
import { isObject } from '../../util/is-object.js';
import { percentEncode } from '../identity.js';
import type { DatasetState } from '../dataset-store.js';
import type { DatasetActivity } from '../dataset-activity.js';

/** What the file store remembers of one dataset: whose it is, where its file is, and its state. */
export interface FileStoreRecord extends DatasetState {
  baseUrl: string;
  userId: string;
  dataset: string;
  path: string;
  filter: Record<string, string>;
  file: string;
  /**
   * The state of a new file written but maybe not yet renamed into place (a crash in between):
   * a file matching it is as good as one matching the committed state.
   */
  pending?: DatasetState | undefined;
  /**
   * The data file as this state was committed (file-fingerprint.ts): an incremental run with nothing
   * to merge trusts a file that still has it, without reading it. Any other value is no fingerprint.
   */
  fingerprint?: string | undefined;
  /** Webhook activity and the last reconcile (dataset-activity.ts): kept across commits, read leniently. */
  activity?: DatasetActivity | undefined;
}

export type StateRecords = Record<string, FileStoreRecord>;

const STATE_FILE_MODE = 0o600;

function invalid(path: string, why: string): LedgerhookError {
  return new LedgerhookError(
    'ERR_IO',
    `${path} is not a ledgerhook sync state file (${why}); move it away, and every dataset is read in full on its next sync`,
    { details: { reason: 'state_file_invalid', path } },
  );
}

const isStringMap = (value: unknown): value is Record<string, string> =>
  isObject(value) && Object.values(value).every((entry) => typeof entry === 'string');

/**
 * The fields a state cannot do without. `schema` is not checked here: a malformed one is read as
 * none (dataset-schema.ts), never a reason to refuse the whole state file.
 */
function isState(value: unknown): value is DatasetState {
  return (
    isObject(value) &&
    typeof value.lastUpdatedDate === 'string' &&
    typeof value.items === 'number' &&
    typeof value.syncedAt === 'string' &&
    (value.mode === 'full' || value.mode === 'incremental' || value.mode === 'document') &&
    typeof value.tokenFingerprint === 'string' &&
    (value.checksum === undefined || typeof value.checksum === 'string')
  );
}

function isRecord(value: unknown): value is FileStoreRecord {
  return (
    isState(value) &&
    isObject(value) &&
    ['baseUrl', 'userId', 'dataset', 'path', 'file'].every((key) => typeof value[key] === 'string') &&
    isStringMap(value.filter) &&
    (value.pending === undefined || isState(value.pending))
  );
}

/**
 * A record's key: the output directory it was synced into, then the dataset's state key
 * (identity.ts). The directory is percent-encoded ([A-Za-z0-9_%-] only), so the first space ends it
 * and two directories, or two datasets, never share a key.
 */
export function recordKey(outDir: string, stateKey: string): string {
  return `out=${percentEncode(outDir)} ${stateKey}`;
}

/** How the keys of an output directory's records start. */
export const outDirKey = (outDir: string): string => recordKey(outDir, '');

function parseRecords(path: string, text: string): StateRecords {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(path, 'not JSON');
  }
  if (!isObject(value) || !isObject(value.datasets)) throw invalid(path, 'no "datasets" object');
  const records: StateRecords = {};
  for (const [key, record] of Object.entries(value.datasets)) {
    if (!key.startsWith('out=') || !isRecord(record))
      throw invalid(path, `the record ${JSON.stringify(key)} is not a dataset state`);
    records[key] = record;
  }
  return records;
}

/**
 * The state file (`state.json`, mode 0600). Reads need no lock (every write is an atomic rename);
 * writers are serialised with a lock file and re-read under it, so two processes never lose each
 * other's records.
 */
export class StateFile {
  readonly path: string;
  readonly #lease: LeaseOptions;

  /** `lease`: the lock's timing and clock (lock-lease.ts; tests stall the clock). */
  constructor(path: string, lease: LeaseOptions = {}) {
    this.path = path;
    this.#lease = lease;
  }

  async read(): Promise<StateRecords> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new LedgerhookError('ERR_IO', `cannot read ${this.path}: ${errnoSentence(error)}`, {
        cause: error,
        details: { reason: 'state_file_unreadable', path: this.path },
      });
    }
    return parseRecords(this.path, text);
  }

  /** Runs `change` on the current records under the lock and writes the result if it says so. */
  async update<T>(
    change: (records: StateRecords) => { write: boolean; result: T } | Promise<{ write: boolean; result: T }>,
  ): Promise<T> {
    const dir = dirname(this.path);
    let lease: LockLease;
    try {
      makeDirectory(dir);
      lease = await LockLease.acquire(this.path, `${this.path}.lock`, `writing ${this.path}`, this.#lease);
    } catch (error) {
      throw new LedgerhookError(
        'ERR_IO',
        `cannot lock ${this.path}: ${errnoSentence(error)}${(error as { path?: string }).path && (error as { path?: string }).path !== this.path ? ` (${(error as { path?: string }).path})` : ''}`,
        { cause: error, details: { reason: 'state_file_unwritable', path: this.path } },
      );
    }
    try {
      const records = await this.read();
      const { write, result } = await change(records);
      if (write) await this.#write(records, lease);
      return result;
    } finally {
      await lease.release();
    }
  }

  async #write(records: StateRecords, lease: LockLease): Promise<void> {
    const temp = join(dirname(this.path), tempFileName(basename(this.path)));
    try {
      const handle = await open(temp, 'wx', STATE_FILE_MODE);
      try {
        await handle.write(`${JSON.stringify({ datasets: records }, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // The records were read under the lock: once it may be another's, they may be out of date.
      lease.assertHeld();
      await rename(temp, this.path);
    } catch (error) {
      await rm(temp, { force: true });
      if (error instanceof LedgerhookError) throw error;
      throw new LedgerhookError(
        'ERR_IO',
        `cannot write ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { cause: error, details: { reason: 'state_file_unwritable', path: this.path } },
      );
    }
  }
}
