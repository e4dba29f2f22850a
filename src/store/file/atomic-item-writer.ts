import { type FileHandle, open, rename, rm, truncate } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DATA_FILE_MODE, type FileDigest, type Item } from './data-file.js';
import { settleBoth, syncDirectory } from './durable-replace.js';
import { checksumOf, FileChecksum } from './file-checksum.js';
import { ItemDigest } from './item-digest.js';
import { tempFileName } from './temp-name.js';
import { writeFailed } from './write-failed.js';

/** Bytes buffered before a write goes out (one write per buffer, one more in flight behind it). */
const WRITE_BUFFER = 1024 * 1024;

/**
 * Writes a new version of a file beside it under a temporary name; `commit` fsyncs and renames
 * it over the old one (atomic on POSIX), `discard` removes it. Until commit, the old file stands.
 */
export class AtomicItemWriter {
  #handle: FileHandle;
  readonly #target: string;
  readonly #temp: string;
  #digest: ItemDigest;
  /** Over the bytes as they are written: the checksum the state keeps (file-checksum.ts). */
  #checksum = new FileChecksum();
  /** Whether an item is in the file yet (the next one is preceded by ",\n"). */
  #started: boolean;
  /** Items copied by `copyRaw`, counted by the caller (`countCopied`): not in the line digest. */
  #copied = 0;
  /** The CRC-32 of slices copied by `copyRaw` whose caller took it already: not computed twice. */
  readonly #known = new WeakMap<Buffer, number>();
  /** Text to write, and slices of an old file copied as they are (a merge's unchanged lines). */
  #chunks: Array<string | Buffer> = [];
  #size = 0;
  /** Bytes in the file (flushed): where a checkpoint says the kept items end. */
  #written: number;
  /** The write started by the last full buffer, not yet waited for (#flushBehind). */
  #inflight: Promise<void> | undefined;
  #done = false;

  private constructor(handle: FileHandle, target: string, temp: string, digest = new ItemDigest(), written = 0) {
    this.#handle = handle;
    this.#target = target;
    this.#temp = temp;
    this.#digest = digest;
    this.#written = written;
    this.#started = digest.items > 0;
  }

  /** A new file under `temp` (default: a fresh temporary name beside the target). */
  static async create(
    target: string,
    temp = join(dirname(target), tempFileName(basename(target))),
  ): Promise<AtomicItemWriter> {
    try {
      const handle = await open(temp, 'wx', DATA_FILE_MODE);
      const writer = new AtomicItemWriter(handle, target, temp);
      writer.#push('[\n');
      return writer;
    } catch (error) {
      throw writeFailed(target, error);
    }
  }

  /**
   * Goes on writing a file kept by a checkpoint: cut back to the `bytes` it recorded (whatever was
   * written after it is dropped) with the digest of the items up to there.
   */
  static async continue(target: string, temp: string, digest: ItemDigest, bytes: number): Promise<AtomicItemWriter> {
    try {
      await truncate(temp, bytes);
      const writer = new AtomicItemWriter(await open(temp, 'a', DATA_FILE_MODE), target, temp, digest, bytes);
      // The checksum of the bytes kept: read back once (a resumed read is rare; its record stays as it was).
      writer.#checksum = await checksumOf(temp, bytes);
      return writer;
    } catch (error) {
      throw writeFailed(target, error);
    }
  }

  /**
   * Starts the file over, empty (a merge that found the old file not as expected goes back to the
   * line-by-line merge). Same temporary name.
   */
  async restart(): Promise<void> {
    await this.#settle();
    await this.#handle.close();
    this.#handle = await open(this.#temp, 'w', DATA_FILE_MODE);
    this.#take();
    this.#written = 0;
    this.#digest = new ItemDigest();
    this.#checksum = new FileChecksum();
    this.#started = false;
    this.#copied = 0;
    this.#push('[\n');
  }

  /** Writes out what is buffered; returns the bytes in the file and the line digest of its items (checkpoints). */
  async flush(): Promise<{ bytes: number; digest: FileDigest }> {
    await this.#flush();
    return { bytes: this.#written, digest: this.#digest.peek() };
  }

  /** Closes the file and leaves it where it is (a checkpoint keeps it for a later run). */
  async close(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#settle().catch(() => {});
    await this.#handle.close().catch(() => {});
  }

  get count(): number {
    return this.#digest.items + this.#copied;
  }

  #push(text: string | Buffer): void {
    this.#chunks.push(text);
    this.#size += text.length;
  }

  /** Waits for the write in flight (if any), then writes what is buffered. */
  async #flush(): Promise<void> {
    await this.#settle();
    await this.#writeOut(this.#take());
  }

  async #settle(): Promise<void> {
    const inflight = this.#inflight;
    this.#inflight = undefined;
    if (inflight) await inflight;
  }

  #take(): Array<string | Buffer> {
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#size = 0;
    return chunks;
  }

  /**
   * A full buffer goes out behind the caller's back: its write starts once the previous one is done
   * and the caller fills the next buffer meanwhile. The caller waits only for the previous write
   * (one in flight at most: memory stays two buffers); an error surfaces at the next wait.
   */
  #flushBehind(): Promise<void> | undefined {
    const previous = this.#inflight;
    const chunks = this.#take();
    const next = (previous ?? Promise.resolve()).then(() => this.#writeOut(chunks));
    next.catch(() => {});
    this.#inflight = next;
    return previous;
  }

  async #writeOut(chunks: Array<string | Buffer>): Promise<void> {
    if (chunks.length === 0) return;
    if (chunks.every((chunk) => typeof chunk === 'string')) {
      const bytes = Buffer.from(chunks.join(''));
      this.#checksum.add(bytes);
      await this.#handle.write(bytes);
      this.#written += bytes.length;
      return;
    }
    // Slices copied from an old file go out as they are (one writev, no concatenated copy).
    const buffers = chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    // In file order: each write starts after the one before it (#flushBehind), so do these.
    for (const buffer of buffers) {
      const known = this.#known.get(buffer);
      if (known === undefined) this.#checksum.add(buffer);
      else this.#checksum.append(known, buffer.length);
    }
    const { bytesWritten } = await this.#handle.writev(buffers);
    const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    // A short writev (rare: a signal, a full disk) goes on from where it stopped.
    if (bytesWritten < total) await this.#handle.write(Buffer.concat(buffers).subarray(bytesWritten));
    this.#written += total;
  }

  /** Items must come in id order; the caller guarantees it. */
  write(item: Item): Promise<void> | undefined {
    return this.writeJson(JSON.stringify(item));
  }

  /** An item already serialised as one line of JSON. */
  writeJson(line: string): Promise<void> | undefined {
    this.#push(`${this.#started ? ',\n' : ''}${line}`);
    this.#started = true;
    this.#digest.add(line);
    return this.#size >= WRITE_BUFFER ? this.#flushBehind() : undefined;
  }

  /**
   * Items already serialised, many at once (a full read's page, page-lines.ts): `lines` holds their
   * lines with ",\n" between them (none after the last), `digestBytes` the same lines each followed by
   * "\n" only (what the line digest is taken over). The caller guarantees id order, as for `write`.
   */
  copyLines(lines: Buffer, digestBytes: Buffer, count: number): Promise<void> | undefined {
    if (this.#started) this.#push(',\n');
    this.#started = true;
    this.#push(lines);
    this.#digest.addLines(digestBytes, count);
    return this.#size >= WRITE_BUFFER ? this.#flushBehind() : undefined;
  }

  /**
   * Item lines copied as they are from a file of this layout (a merge's unchanged lines): `lines`
   * holds them with the ",\n" between them (none after the last). The caller guarantees id order, as
   * for `write`, and says how many items it copied in all (`countCopied`) before the commit; they are
   * in the checksum, not in the line digest (such a writer takes no checkpoint). `crc`: their
   * CRC-32 when the caller has it (file-checksum.ts), so that they are not read twice.
   */
  copyRaw(lines: Buffer, crc?: number): Promise<void> | undefined {
    if (this.#started) this.#push(',\n');
    this.#started = true;
    if (crc !== undefined) this.#known.set(lines, crc);
    this.#push(lines);
    return this.#size >= WRITE_BUFFER ? this.#flushBehind() : undefined;
  }

  countCopied(items: number): void {
    this.#copied += items;
  }

  /** What the file holds once flushed: the item count and the checksum of its bytes. */
  #result(): FileDigest {
    return { items: this.#digest.items + this.#copied, checksum: this.#checksum.toString() };
  }

  /** The temporary file, readable after `seal`. */
  get tempPath(): string {
    return this.#temp;
  }

  /** Finishes and closes the temporary file without putting it in place (to be read back). */
  async seal(): Promise<void> {
    this.#push(this.#started ? '\n]\n' : ']\n');
    await this.#flush();
    await this.#handle.close();
    this.#done = true;
  }

  /**
   * Fsyncs the file, lets `beforeRename` record its digest (the store notes it as pending), and
   * renames it into place. Returns what the file holds.
   */
  async commit(beforeRename?: (digest: FileDigest) => Promise<void>): Promise<FileDigest> {
    this.#push(this.#started ? '\n]\n' : ']\n');
    try {
      await this.#flush();
      const digest = this.#result();
      // Both must be on disk before the rename, in either order (issue 23: one waits for the other's
      // disk flush no longer): the data (else a crash could leave the new name on unwritten blocks),
      // and what `beforeRename` records (the state noting this file as pending).
      await settleBoth(this.#handle.sync(), beforeRename?.(digest));
      await this.#handle.close();
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
      await this.#settle().catch(() => {});
      await this.#handle.close().catch(() => {});
    }
    await rm(this.#temp, { force: true });
  }
}
