import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LedgerhookError } from '../errors.js';
import type { AtomicItemWriter, Item } from './data-file.js';
import { compareIds, type ItemId } from './item-id.js';

/**
 * Pages of a full read go to disk as they arrive (one JSON line per item), with only ids and
 * offsets kept in memory. If the server sent ids in ascending order (the usual case), the spool
 * is copied through in one pass; otherwise it is written out sorted by id, last copy winning.
 */
export class ItemSpool {
  readonly #path: string;
  readonly #handle: FileHandle;
  readonly #ids: ItemId[] = [];
  readonly #offsets: number[] = [];
  readonly #lengths: number[] = [];
  #size = 0;
  #ascending = true;

  private constructor(path: string, handle: FileHandle) {
    this.#path = path;
    this.#handle = handle;
  }

  static async create(dir: string, name: string): Promise<ItemSpool> {
    const path = join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.spool`);
    try {
      return new ItemSpool(path, await open(path, 'wx+', 0o600));
    } catch (error) {
      throw new LedgerhookError('ERR_IO', `cannot write in ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
  }

  get count(): number {
    return this.#ids.length;
  }

  async add(items: readonly Item[]): Promise<void> {
    if (items.length === 0) return;
    const lines: string[] = [];
    for (const item of items) {
      const line = JSON.stringify(item);
      const last = this.#ids.at(-1);
      if (last !== undefined && compareIds(last, item.id) >= 0) this.#ascending = false;
      this.#ids.push(item.id);
      this.#offsets.push(this.#size);
      const length = Buffer.byteLength(line) + 1;
      this.#lengths.push(length);
      this.#size += length;
      lines.push(line);
    }
    await this.#handle.write(`${lines.join('\n')}\n`);
  }

  /** Writes every item, sorted by id with one copy per id, and returns how many. */
  async copySortedTo(writer: AtomicItemWriter): Promise<number> {
    if (this.#ascending) {
      const lines = createInterface({ input: createReadStream(this.#path, { encoding: 'utf8', fd: undefined }), crlfDelay: Infinity });
      for await (const line of lines) if (line) await writer.writeJson(line);
      return this.#ids.length;
    }
    const order = this.#ids.map((_, index) => index);
    // Stable sort by id; of several copies of one id, the last received is kept.
    order.sort((a, b) => compareIds(this.#ids[a]!, this.#ids[b]!) || a - b);
    let written = 0;
    for (let position = 0; position < order.length; position += 1) {
      const index = order[position]!;
      const next = order[position + 1];
      if (next !== undefined && compareIds(this.#ids[next]!, this.#ids[index]!) === 0) continue;
      const buffer = Buffer.alloc(this.#lengths[index]! - 1);
      await this.#handle.read(buffer, 0, buffer.length, this.#offsets[index]!);
      await writer.writeJson(buffer.toString('utf8'));
      written += 1;
    }
    return written;
  }

  async discard(): Promise<void> {
    await this.#handle.close().catch(() => {});
    await rm(this.#path, { force: true });
  }
}
