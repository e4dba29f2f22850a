import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DATA_FILE_MODE, type FileDigest, type Item } from './data-file.js';
import { settleBoth, syncDirectory } from './durable-replace.js';
import { openRegular } from './regular-file.js';
import type { KeptBytes } from './staged-bytes.js';
import { tempFileName } from './temp-name.js';
import { writeFailed } from './write-failed.js';
import { WriteBehind } from './write-behind.js';

/**
 * Writes a new version of a file beside it under a temporary name; `commit` fsyncs and renames
 * it over the old one (atomic on POSIX), `discard` removes it. Until commit, the old file stands.
 * Here: the items' framing (the JSON array, one item a line) and their count; the bytes go out
 * buffered, behind the caller, through write-behind.ts, which takes their checksum.
 */
export class AtomicItemWriter {
  /** The file's bytes, buffered and written behind the caller, with their checksum. */
  readonly #out: WriteBehind;
  readonly #target: string;
  readonly #temp: string;
  /** Items written by `write`, `writeJson` and `copyLines` (and kept, for a continued file). */
  #items: number;
  /** Whether an item is in the file yet (the next one is preceded by ",\n"). */
  #started: boolean;
  /** Items copied by `copyRaw`, counted by the caller (`countCopied`). */
  #copied = 0;
  #done = false;

  private constructor(out: WriteBehind, target: string, temp: string, items = 0) {
    this.#out = out;
    this.#target = target;
    this.#temp = temp;
    this.#items = items;
    this.#started = items > 0;
  }

  /**
   * A new file under `temp` (default: a fresh temporary name beside the target). With `syncEvery`,
   * its bytes are flushed to the disk behind the writer as it goes (write-behind.ts).
   */
  static async create(
    target: string,
    temp = join(dirname(target), tempFileName(basename(target))),
    syncEvery?: number,
  ): Promise<AtomicItemWriter> {
    try {
      const handle = await open(temp, 'wx', DATA_FILE_MODE);
      const writer = new AtomicItemWriter(new WriteBehind(handle, 0, undefined, syncEvery), target, temp);
      writer.#out.add('[\n');
      return writer;
    } catch (error) {
      throw writeFailed(target, error);
    }
  }

  /**
   * Goes on writing a file kept by a checkpoint: cut back to the bytes it recorded (whatever was
   * written after them is dropped), with their items and checksum as read back (`kept`). Opened as
   * the checkpoint's files are read: never through a symlink, a regular file only.
   */
  static async continue(target: string, temp: string, kept: KeptBytes, syncEvery?: number): Promise<AtomicItemWriter> {
    try {
      const handle = await openRegular(temp, constants.O_WRONLY | constants.O_APPEND);
      try {
        await handle.truncate(kept.bytes);
      } catch (error) {
        await handle.close();
        throw error;
      }
      const out = new WriteBehind(handle, kept.bytes, kept.checksum, syncEvery);
      return new AtomicItemWriter(out, target, temp, kept.items);
    } catch (error) {
      throw writeFailed(target, error);
    }
  }

  /** Writes out what is buffered; returns the bytes in the file, its items and their checksum (checkpoints). */
  async flush(): Promise<{ bytes: number; digest: FileDigest }> {
    await this.#out.flush();
    return { bytes: this.#out.written, digest: this.#result() };
  }

  /** Closes the file and leaves it where it is (a checkpoint keeps it for a later run). */
  async close(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#out.close().catch(() => {});
  }

  get count(): number {
    return this.#items + this.#copied;
  }

  /** Items must come in id order; the caller guarantees it. */
  write(item: Item): Promise<void> | undefined {
    return this.writeJson(JSON.stringify(item));
  }

  /** An item already serialised as one line of JSON. */
  writeJson(line: string): Promise<void> | undefined {
    this.#out.add(`${this.#started ? ',\n' : ''}${line}`);
    this.#started = true;
    this.#items += 1;
    return this.#out.flushIfFull();
  }

  /** A buffer of `size` bytes for `copyLines`, lent by the writer and taken back once written (write-behind.ts). */
  borrow(size: number): Buffer {
    return this.#out.borrow(size);
  }

  /**
   * Items already serialised, many at once (a full read's page, page-lines.ts): `lines` holds their
   * lines with ",\n" between them (none after the last). The caller guarantees id order, as for `write`.
   */
  copyLines(lines: Buffer, count: number): Promise<void> | undefined {
    if (this.#started) this.#out.add(',\n');
    this.#started = true;
    this.#out.add(lines);
    this.#items += count;
    return this.#out.flushIfFull();
  }

  /**
   * Item lines copied as they are from a file of this layout (a merge's unchanged lines): `lines`
   * holds them with the ",\n" between them (none after the last). The caller guarantees id order, as
   * for `write`, and says how many items it copied in all (`countCopied`) before the commit (such a
   * writer takes no checkpoint). `crc`: their CRC-32 when the caller has it (file-checksum.ts), so
   * that they are not read twice.
   */
  copyRaw(lines: Buffer, crc?: number): Promise<void> | undefined {
    if (this.#started) this.#out.add(',\n');
    this.#started = true;
    this.#out.addKnown(lines, crc);
    return this.#out.flushIfFull();
  }

  countCopied(items: number): void {
    this.#copied += items;
  }

  /** What the file holds once flushed: the item count and the checksum of its bytes. */
  #result(): FileDigest {
    return { items: this.#items + this.#copied, checksum: this.#out.checksum };
  }

  /** The temporary file, readable after `seal`. */
  get tempPath(): string {
    return this.#temp;
  }

  /** Finishes and closes the temporary file without putting it in place (to be read back). */
  async seal(): Promise<void> {
    this.#out.add(this.#started ? '\n]\n' : ']\n');
    await this.#out.flush();
    await this.#out.close();
    this.#done = true;
  }

  /**
   * Fsyncs the file, lets `beforeRename` record its digest (the store notes it as pending), and
   * renames it into place. Returns what the file holds.
   */
  async commit(beforeRename?: (digest: FileDigest) => Promise<void>): Promise<FileDigest> {
    this.#out.add(this.#started ? '\n]\n' : ']\n');
    try {
      await this.#out.flush();
      const digest = this.#result();
      // Both must be on disk before the rename, in either order, so they are flushed together rather
      // than one after the other: the data (else a crash could leave the new name on unwritten
      // blocks), and what `beforeRename` records (the state noting this file as pending).
      await settleBoth(this.#out.sync(), beforeRename?.(digest));
      await this.#out.close();
      this.#done = true;
      await rename(this.#temp, this.#target);
      await syncDirectory(dirname(this.#target));
      return digest;
    } catch (error) {
      await this.discard();
      throw writeFailed(this.#target, error);
    }
  }

  async discard(): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#out.close().catch(() => {});
    }
    await rm(this.#temp, { force: true });
  }
}
