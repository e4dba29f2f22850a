import type { FileHandle } from 'node:fs/promises';
import { settleBoth } from './durable-replace.js';
import { FileChecksum } from './file-checksum.js';

/** Bytes buffered before a write goes out (one write per buffer, one more in flight behind it). */
const WRITE_BUFFER = 1024 * 1024;

/** A lent buffer's least size (a page of ~1000 items fits), and the bytes at most kept to lend again. */
const LEND_BYTES = 256 * 1024;
const SPARE_BYTES = 4 * 1024 * 1024;

/**
 * The bytes of a file being written (atomic-item-writer.ts), buffered and written out behind the
 * caller: one write in flight at most, each started after the one before it. Apart from the writer's
 * item framing because this is where the bytes' file order is kept, and the checksum the state keeps
 * (file-checksum.ts) is taken over them in that order as they go out.
 *
 * `borrow` lends buffers to fill and add, taken back once written: a full read fills one a page, and a
 * fresh one a page (its memory outside V8's heap, freed only by a collection) kept V8 collecting
 * the old generation every few dozen pages.
 *
 * With `syncEvery`, what is written is also flushed to the disk behind the caller, once that many
 * bytes more are written (fdatasync, one at a time, never waited for by the writes): a file written
 * as pages come from the network is mostly on the disk when it is complete, and the fsync its commit
 * waits for has only the rest to write. Its failure surfaces at `sync`.
 */
export class WriteBehind {
  readonly #handle: FileHandle;
  /** Over the bytes as they are written: the checksum the state keeps (file-checksum.ts). */
  readonly #checksum: FileChecksum;
  /** The CRC-32 of slices added by `addKnown` whose caller took it already: not computed twice. */
  readonly #known = new WeakMap<Buffer, number>();
  /** Text to write, and slices of an old file copied as they are (a merge's unchanged lines). */
  #chunks: Array<string | Buffer> = [];
  #size = 0;
  /** Bytes in the file (flushed): where a checkpoint says the kept items end. */
  #written: number;
  /** The write started by the last full buffer, not yet waited for (#flushBehind). */
  #inflight: Promise<void> | undefined;
  readonly #syncEvery: number | undefined;
  /** Bytes in the file when the last flush to the disk behind the caller started. */
  #syncedAt: number;
  /** That flush, until `sync` or `close` waits for it. */
  #syncing: Promise<void> | undefined;
  /** Buffers lent by `borrow` (each chunk lent, to the buffer it is the start of), and those written, to lend again. */
  readonly #lent = new WeakMap<Buffer, Buffer>();
  readonly #spare: Buffer[] = [];
  #spareBytes = 0;

  constructor(handle: FileHandle, written = 0, checksum = new FileChecksum(), syncEvery?: number) {
    this.#handle = handle;
    this.#written = written;
    this.#checksum = checksum;
    this.#syncEvery = syncEvery;
    this.#syncedAt = written;
  }

  /** Bytes in the file (flushed). */
  get written(): number {
    return this.#written;
  }

  /** The checksum of the bytes written so far. */
  get checksum(): string {
    return this.#checksum.toString();
  }

  add(text: string | Buffer): void {
    this.#chunks.push(text);
    this.#size += text.length;
  }

  /** `size` bytes to fill and `add`: a buffer written before, or a new one; taken back once written. */
  borrow(size: number): Buffer {
    const spare = this.#spare.findIndex((buffer) => buffer.length >= size);
    const whole = spare >= 0 ? this.#spare.splice(spare, 1)[0] : undefined;
    this.#spareBytes -= whole?.length ?? 0;
    const buffer = whole ?? Buffer.allocUnsafeSlow(Math.max(size, LEND_BYTES));
    const chunk = buffer.subarray(0, size);
    this.#lent.set(chunk, buffer);
    return chunk;
  }

  /** Lent buffers written out: lent again (up to SPARE_BYTES of them, the rest left to the collector). */
  #takeBack(chunks: readonly Buffer[]): void {
    for (const chunk of chunks) {
      const buffer = this.#lent.get(chunk);
      if (buffer === undefined) continue;
      this.#lent.delete(chunk);
      if (this.#spareBytes + buffer.length > SPARE_BYTES) continue;
      this.#spare.push(buffer);
      this.#spareBytes += buffer.length;
    }
  }

  /** `lines` whose CRC-32 the caller has (`crc`), so that they are not read twice. */
  addKnown(lines: Buffer, crc: number | undefined): void {
    if (crc !== undefined) this.#known.set(lines, crc);
    this.add(lines);
  }

  /** Once a buffer is full, sends it out behind the caller (#flushBehind); else nothing to wait for. */
  flushIfFull(): Promise<void> | undefined {
    return this.#size >= WRITE_BUFFER ? this.#flushBehind() : undefined;
  }

  /** Waits for the write in flight (if any), then writes what is buffered. */
  async flush(): Promise<void> {
    await this.settle();
    await this.#writeOut(this.#take());
  }

  async settle(): Promise<void> {
    const inflight = this.#inflight;
    this.#inflight = undefined;
    if (inflight) await inflight;
  }

  /** Makes every byte written durable (fsync), the flush behind the caller included (its failure too). */
  async sync(): Promise<void> {
    await settleBoth(this.#handle.sync(), this.#syncing);
  }

  /** Waits for what is in flight (its failure ignored: the file is given up or left), then closes the file. */
  async close(): Promise<void> {
    await this.settle().catch(() => {});
    await this.#syncing?.catch(() => {});
    await this.#handle.close();
  }

  /** Starts flushing to the disk what is written, once `syncEvery` bytes more are, if none is under way. */
  #syncBehind(): void {
    if (this.#syncEvery === undefined || this.#syncing !== undefined) return;
    if (this.#written - this.#syncedAt < this.#syncEvery) return;
    this.#syncedAt = this.#written;
    const syncing = this.#handle.datasync().then(() => {
      // Done: the next one may start. A failure stays in #syncing, for `sync` to throw.
      if (this.#syncing === syncing) this.#syncing = undefined;
    });
    syncing.catch(() => {}); // thrown by `sync`; a file given up (`close`) does not care
    this.#syncing = syncing;
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
      this.#syncBehind();
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
    this.#takeBack(buffers);
    this.#syncBehind();
  }
}
