import { compareIds, idKey, type ItemId } from '../../dataset/item-id.js';
import type { StoredItem } from '../dataset-store.js';

/**
 * Whether the pages of a full read have brought ids in ascending order so far: while they do, they
 * can be COPYed (no id repeats); once one does not, the load upserts from then on, for good.
 * Numbers sort before strings, but 1.5 and "1.5" are one row key: the first string after a number
 * ends the ascent as if the order broke, so that a repeated key is upserted, not refused.
 */
export class AscendingIds {
  #ascending: boolean;
  #largest: ItemId | undefined;

  /** `ascending` false starts the load as broken order (a resumed load over rows already staged). */
  constructor(ascending = true) {
    this.#ascending = ascending;
  }

  /** Sees a page; true while every id so far ascended. */
  see(page: readonly StoredItem[]): boolean {
    if (!this.#ascending) return false;
    for (const item of page) {
      const typeChanged =
        this.#largest !== undefined && idKey(this.#largest).startsWith('n') && idKey(item.id).startsWith('s');
      if (this.#largest !== undefined && (typeChanged || compareIds(item.id, this.#largest) <= 0)) {
        this.#ascending = false;
        return false;
      }
      this.#largest = item.id;
    }
    return true;
  }
}
