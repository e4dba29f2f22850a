import { stat } from 'node:fs/promises';
import type { ItemId } from '../../dataset/item-id.js';

/**
 * A dataset file: a JSON array, one item per line, sorted by id. It is valid JSON for any
 * tool, and it streams line by line, so neither writing nor merging holds the dataset in memory.
 *
 *   [
 *   {"id":1,...},
 *   {"id":2,...}
 *   ]
 */
export type Item = Record<string, unknown> & { id: ItemId };

/**
 * What a file holds, kept with the state so a damaged file is noticed before anything is merged into
 * it: its item count and checksum (file-checksum.ts).
 */
export interface FileDigest {
  items: number;
  checksum: string;
}

/** Data files hold a user's books: readable by their owner only, like the state. */
export const DATA_FILE_MODE = 0o600;

/** Whether a data file is there (one stat); a file that cannot be looked at counts as missing. */
export const dataFileExists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );
