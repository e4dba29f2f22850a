import { activityFrom, type DatasetActivity } from '../dataset-activity.js';
import type { DatasetRef, DatasetState } from '../dataset-store.js';
import { schemaFrom } from '../dataset-schema.js';
import { normaliseBaseUrl } from '../identity.js';
import { LedgerhookError } from '../../errors.js';
import type { FileStoreRecord, StateFile, StateRecords } from './file-store-state.js';

type Ref = Pick<DatasetRef, 'userId' | 'dataset' | 'baseUrl'>;

/** A record's state as the store hands it out: known fields only, the schema read leniently. */
export function stateOf(record: DatasetState): DatasetState {
  // The schema is read leniently (isState does not check it): a malformed one counts as none.
  const schema = schemaFrom(record.schema);
  return {
    lastUpdatedDate: record.lastUpdatedDate,
    items: record.items,
    syncedAt: record.syncedAt,
    mode: record.mode,
    tokenFingerprint: record.tokenFingerprint,
    checksum: record.checksum,
    ...(typeof record.run === 'string' ? { run: record.run } : {}),
    ...(schema ? { schema } : {}),
  };
}

/**
 * Whether a record (under `key`) is of the file `ref` names in an output directory (`outDir`: how
 * its keys start, outDirKey): found by what names the file, never by comparing paths (two spellings
 * of one file on a case-insensitive file system): the exact userId and the exact dataset.
 */
export const isRecordOf = (
  key: string,
  record: FileStoreRecord,
  outDir: string,
  ref: Pick<DatasetRef, 'userId' | 'dataset'>,
): boolean => key.startsWith(outDir) && record.userId === ref.userId && record.dataset === ref.dataset;

/** A file belongs to the first owner that synced it (record `key`); anyone else is refused. */
export function assertOwner(records: StateRecords, key: string, ref: DatasetRef, file: string, outDir: string): void {
  for (const [other, record] of Object.entries(records)) {
    if (other === key || !isRecordOf(other, record, outDir, ref)) continue;
    const whose =
      record.tokenFingerprint !== ref.tokenFingerprint
        ? `with another access token (fingerprint ${record.tokenFingerprint})`
        : 'from another server';
    throw new LedgerhookError(
      'ERR_USAGE',
      `${file} holds ${record.dataset} synced from ${record.baseUrl} ${whose}; data of different accounts or servers is never merged`,
      { details: { reason: 'owner_mismatch', path: file, dataset: record.dataset } },
    );
  }
}

/**
 * What the file store remembers of its datasets, as the records of its state file: listed (with
 * their activity), changed in their activity only, and forgotten. Files are never touched here.
 */
export class FileStoreRecords {
  readonly #state: StateFile;

  constructor(state: StateFile) {
    this.#state = state;
  }

  async list(): Promise<Array<{ ref: Ref; state: DatasetState; place: string; activity?: DatasetActivity }>> {
    return Object.values(await this.#state.read()).map((record) => {
      const activity = activityFrom(record.activity);
      return {
        ref: { userId: record.userId, dataset: record.dataset, baseUrl: record.baseUrl },
        state: stateOf(record),
        place: record.file,
        ...(activity ? { activity } : {}),
      };
    });
  }

  async updateActivity(key: string, change: (previous: DatasetActivity | undefined) => DatasetActivity) {
    await this.#state.update((records) => {
      const record = records[key];
      if (record) record.activity = change(activityFrom(record.activity));
      return { write: record !== undefined, result: undefined };
    });
  }

  /** Forgets the records of `keys`; files are kept. Returns the keys that were there. */
  forget(keys: readonly string[]): Promise<string[]> {
    return this.#state.update((records) => {
      const gone = keys.filter((key) => key in records);
      for (const key of gone) delete records[key];
      return { write: gone.length > 0, result: gone };
    });
  }

  /** Forgets a dataset of a user on a server (any server when baseUrl is ''), for every token. */
  async reset(ref: Ref): Promise<boolean> {
    const base = normaliseBaseUrl(ref.baseUrl);
    const keys = Object.entries(await this.#state.read())
      .filter(
        ([, record]) =>
          record.userId === ref.userId && record.dataset === ref.dataset && (base === '' || record.baseUrl === base),
      )
      .map(([key]) => key);
    return (await this.forget(keys)).length > 0;
  }
}
