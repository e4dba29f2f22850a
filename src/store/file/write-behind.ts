import type { FileHandle } from 'node:fs/promises';
import { FileChecksum } from './file-checksum.js';

/** Bytes buffered before a write goes out (one write per buffer, one more in flight behind it). */
const WRITE_BUFFER = 1024 * 1024;

/**
 * The bytes of a file being written (atomic-item-writer.ts), buffered and written out behind the
 * caller: one write in flight at most, each started after the one before it. Apart from the writer's
 * item framing because this is where the bytes' file order is kept, and the checksum the state keeps
 * (file-checksum.ts) is taken over them in that order as they go out.
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

  constructor(handle: FileHandle, written = 0, checksum = new FileChecksum()) {
    this.#handle = handle;
    this.#written = written;
    this.#checksum = checksum;
  }

  get handle(): FileHandle {
    return this.#handle;
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
}
