import type pg from 'pg';
import { isItemId } from '../../dataset/item-id.js';
import { LedgerhookError } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import type { DatasetRef, ReadCheckpoint, StoredItem } from '../dataset-store.js';
import { itemsOfRows } from './postgres-page-text.js';

/** Deletes what a read kept of a dataset (on any connection; in a load's transaction at its commit). */
export async function dropKept(client: pg.ClientBase | pg.Pool, ref: Pick<DatasetRef, 'userId' | 'dataset'>) {
  const params = [ref.userId, ref.dataset];
  await client.query('DELETE FROM ledgerhook_staged_pages WHERE user_id = $1 AND dataset = $2', params);
  await client.query('DELETE FROM ledgerhook_checkpoint WHERE user_id = $1 AND dataset = $2', params);
}

/**
 * Pages held for the next checkpoint at most. A read checkpoints after every page and its writes
 * wait once a batch is due (postgres-resumable-load.ts: at most `pages` of the cadence, 8 by
 * default, plus the batch in flight); a caller that adds pages without checkpoints gets a read that
 * is no longer kept (an all-or-nothing one), rather than memory that grows with the dataset.
 */
export const MAX_PENDING_PAGES = 16;

/** What waits for the next checkpoint write: pages added since the last one, and their COPY bytes. */
export interface OwedPages {
  pages: number;
  bytes: number;
}

/** What a checkpoint row says was kept with it: what the kept pages must add up to. */
export interface KeptCount {
  pages: number;
  items: number;
}

/**
 * The pages of a resumable full read, kept where a later run finds them, for one statement per
 * checkpoint written. The read's rows go into the dataset in its own transaction, as an
 * all-or-nothing read's do (postgres-full-load.ts); beside it, each page's COPY rows (the bytes
 * already made for the load) wait here until a checkpoint is written, which writes the pages since
 * the last one together with the checkpoint row in one statement on another connection, while the
 * read goes on. A crash loses the transaction and at most the pages after the last checkpoint
 * written; the next run feeds the kept pages to its own load and goes on from its cursor.
 */
export class PageKeeper {
  readonly #pool: pg.Pool;
  readonly #ref: DatasetRef;
  readonly #wrap: (error: unknown) => Error;
  /** Pages added since the last checkpoint written: their COPY rows and how many items each holds. */
  #pending: Array<{ rows: readonly Buffer[]; items: number }> = [];
  #pendingBytes = 0;
  #kept: KeptCount;
  #added: number;
  /** Whether a checkpoint row exists that this read wrote or continues. */
  saved: boolean;
  #replaying = false;
  /** Too many pages came without a checkpoint: nothing more is kept, and what was is dropped. */
  #gaveUp = false;

  constructor(pool: pg.Pool, ref: DatasetRef, wrap: (error: unknown) => Error, kept?: KeptCount) {
    this.#pool = pool;
    this.#ref = ref;
    this.#wrap = wrap;
    this.#kept = kept ?? { pages: 0, items: 0 };
    this.#added = this.#kept.pages;
    this.saved = kept !== undefined;
  }

  /** A page the load has written (ignored while the kept pages are fed back: they are kept already). */
  page(rows: readonly Buffer[], items: number): void {
    if (this.#replaying || this.#gaveUp) return;
    this.#pending.push({ rows, items });
    this.#pendingBytes += byteLength(rows);
    this.#added += 1;
    if (this.#pending.length > MAX_PENDING_PAGES) {
      this.#gaveUp = true;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
  }

  /** The pages not written yet, and their bytes: what the next write would send. */
  get owed(): OwedPages {
    return { pages: this.#pending.length, bytes: this.#pendingBytes };
  }

  /** Pages added so far, kept ones included: what a checkpoint asked for now goes up to. */
  get added(): number {
    return this.#added;
  }

  /**
   * The checkpoint `at` with the pages up to `through` (counted as `added` was when it was asked for)
   * not kept yet, in one statement (one commit). Pages added since wait for the next checkpoint. One
   * save at a time (the caller's rule): each begins where the last one ended.
   */
  async save(at: ReadCheckpoint, through: number): Promise<void> {
    if (this.#gaveUp) {
      if (this.saved) await this.clear();
      return;
    }
    const pages = this.#pending.splice(0, Math.max(0, through - this.#kept.pages));
    const sent = pages.reduce((sum, page) => sum + byteLength(page.rows), 0);
    this.#pendingBytes -= sent;
    const items = pages.reduce((sum, page) => sum + page.items, 0);
    const kept = { pages: this.#kept.pages + pages.length, items: this.#kept.items + items };
    // The rows' bytes as they went to the load's COPY, sent as they are (a binary parameter: no
    // encoding), and last: the driver copies each parameter into one growing buffer, and any value
    // after a large one would make it copy the large one again.
    const body = Buffer.concat(pages.flatMap((page) => page.rows));
    try {
      await this.#pool.query(
        `WITH page AS (
           INSERT INTO ledgerhook_staged_pages (user_id, dataset, first_page, pages, items, body)
           SELECT $1, $2, $3, $4, $5, $9 WHERE $4::int > 0
         )
         INSERT INTO ledgerhook_checkpoint (user_id, dataset, checkpoint, staged_pages, staged_items, saved_at)
         VALUES ($1, $2, $6::json, $7, $8, now())
         ON CONFLICT (user_id, dataset) DO UPDATE SET checkpoint = excluded.checkpoint,
           staged_pages = excluded.staged_pages, staged_items = excluded.staged_items, saved_at = excluded.saved_at`,
        [
          this.#ref.userId,
          this.#ref.dataset,
          this.#kept.pages + 1,
          pages.length,
          items,
          JSON.stringify(at),
          kept.pages,
          kept.items,
          body,
        ],
      );
    } catch (error) {
      this.#pending.unshift(...pages);
      this.#pendingBytes += sent;
      throw this.#wrap(error);
    }
    this.#kept = kept;
    this.saved = true;
  }

  /** Drops what this dataset's reads kept (autocommit; the caller holds the dataset's lock). */
  async clear(): Promise<void> {
    try {
      await dropKept(this.#pool, this.#ref);
    } catch (error) {
      throw this.#wrap(error);
    }
    this.saved = false;
  }

  /**
   * The kept pages in order, each as the items to feed the load again (one kept row at a time, so
   * memory holds one). Rows are input like any other: one that is not a JSON array of items with
   * ids is refused, and all are dropped.
   */
  async feed(add: (items: StoredItem[]) => Promise<void>): Promise<void> {
    this.#replaying = true;
    try {
      for (let after = 0; ; ) {
        const result = await this.#pool
          .query<{ first_page: number; pages: number; body: string }>(
            `SELECT first_page, pages, body FROM ledgerhook_staged_pages
             WHERE user_id = $1 AND dataset = $2 AND first_page > $3 ORDER BY first_page LIMIT 1`,
            [this.#ref.userId, this.#ref.dataset, after],
          )
          .catch((error: unknown) => {
            throw this.#wrap(error);
          });
        const row = result.rows[0];
        if (!row) return;
        const items = keptItems(row.body);
        if (!items) {
          // Dropped, so that the next run reads from page 1 rather than meet them again.
          await this.clear();
          throw new LedgerhookError(
            'ERR_IO',
            `the kept pages of an interrupted read of ${this.#ref.dataset} were damaged (from page ${row.first_page}) and are dropped`,
            { details: { reason: 'store_failed' } },
          );
        }
        await add(items);
        after = row.first_page;
      }
    } finally {
      this.#replaying = false;
    }
  }
}

const byteLength = (rows: readonly Buffer[]) => rows.reduce((sum, row) => sum + row.length, 0);

/** A kept row's items, or undefined when it does not read as COPY rows of items with ids. */
function keptItems(body: string): StoredItem[] | undefined {
  let items: unknown;
  try {
    items = itemsOfRows(body);
  } catch {
    return undefined;
  }
  return Array.isArray(items) && items.every((item) => isObject(item) && isItemId(item.id))
    ? (items as StoredItem[])
    : undefined;
}
