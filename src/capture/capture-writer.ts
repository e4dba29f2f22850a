import { open, type FileHandle } from 'node:fs/promises';
import { LedgerhookError } from '../errors.js';
import type { AttemptRecord } from './attempt-record.js';
import type { CaptureRecord } from './capture-record.js';

/**
 * Appends records to a JSON Lines file opened with O_APPEND. Every `write` carries whole lines
 * only: lines that arrive while a write is in flight are gathered and written together next
 * (a group commit, which keeps up with a receiver under load). A crash can therefore leave at
 * most a torn last line, never a half line between two whole ones.
 *
 * `append` resolves once its line was handed to the OS (write(2) returned), so it survives the
 * process being killed; with `sync` each batch is also fsync'ed (fdatasync) before, so it survives
 * a power cut too.
 */
export interface CaptureWriterOptions {
  /** fdatasync after every batch: a resolved append is on disk, not only in the OS. */
  sync?: boolean | undefined;
}

export class CaptureWriter {
  readonly path: string;
  #handle: FileHandle;
  #pending: Buffer[] = [];
  #waiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  #flushing: Promise<void> | undefined;
  #written = 0;
  #queuedBytes = 0;
  #failure: Error | undefined;
  readonly #sync: boolean;

  private constructor(path: string, handle: FileHandle, options: CaptureWriterOptions) {
    this.path = path;
    this.#handle = handle;
    this.#sync = Boolean(options.sync);
  }

  static async open(path: string, options: CaptureWriterOptions = {}): Promise<CaptureWriter> {
    try {
      return new CaptureWriter(path, await open(path, 'a', 0o600), options);
    } catch (error) {
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

  /** Bytes of lines accepted by `append` and not yet written: what the queue holds in memory. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Resolves once the record's line is in the file. */
  append(record: CaptureRecord | AttemptRecord): Promise<void> {
    if (this.#failure) return Promise.reject(this.#error());
    const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    this.#queuedBytes += line.length;
    this.#pending.push(line);
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#flushing ??= this.#flush();
    return done;
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const lines = this.#pending;
      const waiters = this.#waiters;
      this.#pending = [];
      this.#waiters = [];
      const batch = Buffer.concat(lines);
      try {
        let offset = 0;
        // A regular file takes the whole buffer in one write; the loop only guards a short write.
        while (offset < batch.length)
          offset += (await this.#handle.write(batch, offset, batch.length - offset)).bytesWritten;
        if (this.#sync) await this.#handle.datasync();
        this.#written += lines.length;
        this.#queuedBytes -= batch.length;
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        this.#failure = error as Error;
        for (const waiter of [...waiters, ...this.#waiters]) waiter.reject(this.#error());
        this.#pending = [];
        this.#waiters = [];
        this.#queuedBytes = 0;
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
