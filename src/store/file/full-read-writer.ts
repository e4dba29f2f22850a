import { setImmediate as nextTurn } from 'node:timers/promises';
import { open } from 'node:fs/promises';
import { readLines } from '../../util/read-lines.js';
import { AtomicItemWriter } from './atomic-item-writer.js';
import type { FileDigest, Item } from './data-file.js';
import { collisionError, compareIds, idsCollide, type ItemId } from '../../dataset/item-id.js';
import { ITEMS_AT_ONCE, responseLines, serialisedLines } from './page-lines.js';
import { locateItems } from '../../dataset/item-bytes.js';
import type { KeptBytes } from './staged-bytes.js';

/**
 * A full read's file is flushed to the disk behind it every so many bytes (write-behind.ts): its
 * commit then waits for the last few MB only, not for the whole file (a 1M-item read writes 200 MB).
 */
const SYNC_EVERY = 8 * 1024 * 1024;

/** How far the items written are in id order: kept with a checkpoint, so a resumed read sorts as one. */
export interface StagedOrder {
  lastId: ItemId | null;
  ascending: boolean;
}

/** Where a staging file stands at a checkpoint: its length, and its items and checksum up to there. */
export interface StagedMark extends FileDigest, StagedOrder {
  bytes: number;
}

/**
 * Writes the items of a full read straight into the new file as pages arrive. Servers send ids
 * in ascending order in practice, and then this is the only pass. If one arrives out of order
 * (or twice), the written file is read back once and written again sorted by id, the last copy
 * of an id winning; only ids and offsets are held in memory for that.
 */
export class FullReadWriter {
  readonly #target: string;
  readonly #writer: AtomicItemWriter;
  #lastId: ItemId | undefined;
  #ascending = true;

  private constructor(target: string, writer: AtomicItemWriter, order?: StagedOrder) {
    this.#target = target;
    this.#writer = writer;
    if (order) {
      this.#lastId = order.lastId ?? undefined;
      this.#ascending = order.ascending;
    }
  }

  /** A new file under `temp` (default: a fresh temporary name beside the target). */
  static async create(target: string, temp?: string): Promise<FullReadWriter> {
    return new FullReadWriter(target, await AtomicItemWriter.create(target, temp, SYNC_EVERY));
  }

  /** Goes on with the file a checkpoint kept, as it stood at that checkpoint (`kept`, in the order `staged`). */
  static async continue(target: string, temp: string, kept: KeptBytes, staged: StagedOrder): Promise<FullReadWriter> {
    return new FullReadWriter(target, await AtomicItemWriter.continue(target, temp, kept, SYNC_EVERY), staged);
  }

  /** Writes out what is buffered and says where the file stands, for a checkpoint. */
  async mark(): Promise<StagedMark> {
    const { bytes, digest } = await this.#writer.flush();
    return { bytes, ...digest, lastId: this.#lastId ?? null, ascending: this.#ascending };
  }

  /** Closes the file and leaves it for a later run (its checkpoint says how far it is good). */
  async close(): Promise<void> {
    await this.#writer.close();
  }

  /**
   * `bytes`: the response the items were parsed from. Its compact items are written as they stand
   * there (page-lines.ts responseLines), found in one pass; the others, or all without it, serialised.
   */
  async add(items: readonly Item[], bytes?: Buffer): Promise<void> {
    if (items.length === 0) return;
    // One turn of the event loop first: the next page's request, issued just before this page was
    // handed over, goes out on the socket only when the loop turns (undici writes it a tick or two
    // later), so work done before it keeps the server idle meanwhile.
    await nextTurn();
    for (const item of items) {
      if (this.#lastId !== undefined && compareIds(this.#lastId, item.id) >= 0) this.#ascending = false;
      this.#lastId = item.id;
    }
    const located = bytes === undefined ? undefined : locateItems(bytes, items.length);
    if (located !== undefined && located.compactCount > 0) {
      const lines = responseLines(items, located, (size) => this.#writer.borrow(size));
      const flushing = this.#writer.copyLines(lines, items.length);
      if (flushing) await flushing;
      return;
    }
    // A few hundred items serialised at once (page-lines.ts), the same bytes as item by item. Not a
    // whole page: strings over 128 KiB go to V8's large-object space, freed only by a full GC (a
    // 1M-item read's peak RSS rose by 16 MB when pages of 1000 items were serialised whole).
    for (let start = 0; start < items.length; start += ITEMS_AT_ONCE) {
      // A turn between batches too: whatever else the process serves (listen's deliveries) is not
      // held up for a whole page.
      if (start > 0) await nextTurn();
      const part = items.length <= ITEMS_AT_ONCE ? items : items.slice(start, start + ITEMS_AT_ONCE);
      const flushing = this.#writer.copyLines(serialisedLines(part), part.length);
      if (flushing) await flushing;
    }
  }

  /** Puts the file in place (sorted) and returns what it holds. */
  async commit(beforeRename?: (digest: FileDigest) => Promise<void>): Promise<FileDigest> {
    if (this.#ascending) return this.#writer.commit(beforeRename);
    await this.#writer.seal();
    const sorted = await AtomicItemWriter.create(this.#target);
    try {
      await copySorted(this.#writer.tempPath, sorted);
      return await sorted.commit(beforeRename);
    } catch (error) {
      await sorted.discard();
      throw error;
    } finally {
      await this.#writer.discard();
    }
  }

  async discard(): Promise<void> {
    await this.#writer.discard();
  }
}

async function copySorted(source: string, writer: AtomicItemWriter): Promise<void> {
  const ids: ItemId[] = [];
  const offsets: number[] = [];
  const lengths: number[] = [];
  let offset = 0;
  for await (const line of readLines(source)) {
    const bytes = Buffer.byteLength(line) + 1;
    if (line !== '[' && line !== ']' && line !== '') {
      const text = line.endsWith(',') ? line.slice(0, -1) : line;
      ids.push((JSON.parse(text) as Item).id);
      offsets.push(offset);
      lengths.push(Buffer.byteLength(text));
    }
    offset += bytes;
  }
  const order = ids.map((_, index) => index);
  const idAt = (index: number): ItemId => ids[index] ?? 0;
  order.sort((a, b) => compareIds(idAt(a), idAt(b)) || a - b);
  const handle = await open(source, 'r');
  try {
    for (let position = 0; position < order.length; position += 1) {
      const index = order[position] ?? 0;
      const next = order[position + 1];
      // Of several copies of one id, the last one read wins.
      if (next !== undefined && compareIds(idAt(next), idAt(index)) === 0) {
        if (idsCollide(idAt(index), idAt(next)))
          throw collisionError(idAt(index), idAt(next), 'the pages of a full read');
        continue;
      }
      const buffer = Buffer.alloc(lengths[index] ?? 0);
      await handle.read(buffer, 0, buffer.length, offsets[index] ?? 0);
      const flushing = writer.writeJson(buffer.toString('utf8'));
      if (flushing) await flushing;
    }
  } finally {
    await handle.close();
  }
}
