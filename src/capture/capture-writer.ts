import { open, type FileHandle } from 'node:fs/promises';
import { LedgerhookError } from '../errors.js';
import type { CaptureRecord } from './capture-record.js';

/**
 * Appends records to a JSON Lines file. Each record is serialised first and written with one
 * `write` on a file opened with O_APPEND, so a crash can leave at most a torn last line, never
 * a half line between two whole ones; writes are queued so lines never interleave.
 */
export class CaptureWriter {
  readonly path: string;
  #handle: FileHandle;
  #queue: Promise<void> = Promise.resolve();
  #written = 0;
  #failure: Error | undefined;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  static async open(path: string): Promise<CaptureWriter> {
    try {
      return new CaptureWriter(path, await open(path, 'a', 0o600));
    } catch (error) {
      throw new LedgerhookError('ERR_IO', `cannot open capture file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
  }

  get written(): number {
    return this.#written;
  }

  append(record: CaptureRecord): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    this.#queue = this.#queue.then(async () => {
      if (this.#failure) return;
      try {
        let offset = 0;
        // A regular file takes the whole buffer in one write; the loop only guards a short write.
        while (offset < line.length) {
          const { bytesWritten } = await this.#handle.write(line, offset, line.length - offset);
          offset += bytesWritten;
        }
        this.#written += 1;
      } catch (error) {
        this.#failure = error as Error;
      }
    });
    return this.#queue.then(() => {
      if (this.#failure) throw new LedgerhookError('ERR_IO', `cannot write to capture file ${this.path}: ${this.#failure.message}`, { cause: this.#failure });
    });
  }

  /** Waits for queued lines, flushes them to disk and closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    try {
      await this.#handle.sync();
    } finally {
      await this.#handle.close();
    }
  }
}
