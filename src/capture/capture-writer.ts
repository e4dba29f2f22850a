import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { LedgerhookError } from '../errors.js';
import type { AttemptRecord } from './attempt-record.js';
import type { CaptureRecord } from './capture-record.js';
import type { RefusedBound } from './refused-bound.js';

/**
 * Appends records to a JSON Lines file opened with O_APPEND. Every write carries whole lines only:
 * the lines appended in one turn of the event loop are written together (a group commit, which
 * keeps up with a receiver under load). A crash can therefore leave at most a torn last line, never
 * a half line between two whole ones.
 *
 * `append` resolves once its line was handed to the OS (write(2) returned), so it survives the
 * process being killed; with `sync` each batch is also fsync'ed (fdatasync) before, so it survives
 * a power cut too.
 *
 * A regular file without `sync` is written with one synchronous write(2) per turn of the event loop
 * (a copy into the page cache): under load the thread pool's round trip per batch (a hand-off to a
 * worker thread and a wake-up back, on the same cores as the server) cost more than the write
 * itself. With `sync`, and for a pipe or a terminal (which may block until read), the writes stay
 * asynchronous, one batch at a time, lines arriving meanwhile gathered for the next.
 */
export interface CaptureWriterOptions {
  /** fdatasync after every batch: a resolved append is on disk, not only in the OS. */
  sync?: boolean | undefined;
}

/** One promise for every line of a batch: they are written, or fail, together. */
interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

export class CaptureWriter {
  readonly path: string;
  #handle: FileHandle;
  #pending: string[] = [];
  #batch: Batch | undefined;
  #flushing: Promise<void> | undefined;
  #scheduled = false;
  #written = 0;
  #queuedBytes = 0;
  #failure: Error | undefined;
  readonly #sync: boolean;
  /** Written synchronously once per turn (a regular file, without `sync`). */
  readonly #direct: boolean;

  private constructor(path: string, handle: FileHandle, options: CaptureWriterOptions, regularFile: boolean) {
    this.path = path;
    this.#handle = handle;
    this.#sync = Boolean(options.sync);
    this.#direct = regularFile && !this.#sync;
  }

  static async open(path: string, options: CaptureWriterOptions = {}): Promise<CaptureWriter> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, 'a', 0o600);
      return new CaptureWriter(path, handle, options, (await handle.stat()).isFile());
    } catch (error) {
      await handle?.close().catch(() => {});
      throw new LedgerhookError(
        'ERR_IO',
        `cannot open capture file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { cause: error },
      );
    }
  }

  get written(): number {
    return this.#written;
  }

  /**
   * What the queue holds in memory: the lines accepted by `append` and not yet written, in UTF-16
   * code units (a JSON line is ASCII but for the non-ASCII text it quotes).
   */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Resolves once the record's line is in the file (a recording's lines go through here too). */
  append(record: CaptureRecord | AttemptRecord | object): Promise<void> {
    if (this.#failure) return Promise.reject(this.#error());
    return this.#enqueue(`${JSON.stringify(record)}\n`);
  }

  /**
   * A refused delivery's line, within the bound's total (its rate was taken before the record was
   * built): resolves true once written, false when the line would pass the total (counted, not written).
   */
  async appendRefused(record: CaptureRecord, bound: RefusedBound): Promise<boolean> {
    if (this.#failure) throw this.#error();
    const line = `${JSON.stringify(record)}\n`;
    if (!bound.takeBytes(Buffer.byteLength(line))) return false;
    await this.#enqueue(line);
    return true;
  }

  #enqueue(line: string): Promise<void> {
    this.#queuedBytes += line.length;
    this.#pending.push(line);
    this.#batch ??= newBatch();
    const { promise } = this.#batch;
    if (!this.#direct) this.#flushing ??= this.#flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      // After every request that became readable in this turn has appended its line.
      setImmediate(() => this.#writeNow());
    }
    return promise;
  }

  /** Takes the pending lines and their promise: the next lines start a new batch. */
  #take(): { text: string; count: number; batch: Batch | undefined } {
    const lines = this.#pending;
    const batch = this.#batch;
    this.#pending = [];
    this.#batch = undefined;
    return { text: lines.length === 1 ? (lines[0] as string) : lines.join(''), count: lines.length, batch };
  }

  #settle(count: number, length: number, batch: Batch | undefined): void {
    this.#written += count;
    this.#queuedBytes -= length;
    batch?.resolve();
  }

  #fail(error: unknown, batch: Batch | undefined): void {
    this.#failure = error as Error;
    batch?.reject(this.#error());
    this.#batch?.reject(this.#error());
    this.#pending = [];
    this.#batch = undefined;
    this.#queuedBytes = 0;
  }

  #writeNow(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    const { text, count, batch } = this.#take();
    try {
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      // A regular file takes the whole buffer in one write; the loop only guards a short write.
      while (offset < bytes.length) offset += writeSync(this.#handle.fd, bytes, offset, bytes.length - offset);
      this.#settle(count, text.length, batch);
    } catch (error) {
      this.#fail(error, batch);
    }
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const { text, count, batch } = this.#take();
      try {
        const bytes = Buffer.from(text, 'utf8');
        let offset = 0;
        while (offset < bytes.length)
          offset += (await this.#handle.write(bytes, offset, bytes.length - offset)).bytesWritten;
        if (this.#sync) await this.#handle.datasync();
        this.#settle(count, text.length, batch);
      } catch (error) {
        this.#fail(error, batch);
      }
    }
    this.#flushing = undefined;
  }

  #error(): LedgerhookError {
    return new LedgerhookError('ERR_IO', `cannot write to capture file ${this.path}: ${this.#failure?.message}`, {
      cause: this.#failure,
    });
  }

  /** Waits for queued lines, flushes them to disk and closes the file. */
  async close(): Promise<void> {
    if (this.#direct) this.#writeNow();
    while (this.#flushing) await this.#flushing;
    try {
      await this.#handle.sync().catch((error: NodeJS.ErrnoException) => {
        // A pipe or a terminal (--capture /dev/stdout, a FIFO) has nothing to flush to a disk.
        if (error.code !== 'EINVAL' && error.code !== 'ENOTSUP') throw error;
      });
    } finally {
      await this.#handle.close();
    }
  }
}
