import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CaptureWriter } from '../capture/capture-writer.js';
import { DEFAULT_CAPTURE_QUEUE_BYTES } from '../capture/capture-subscriber.js';
import { LedgerhookError } from '../errors.js';
import { errnoSentence, makeDirectory } from '../util/fs-errors.js';
import {
  RECORDING_FILE,
  RECORDING_FORMAT,
  type RecordedDeliveryMark,
  type RecordedExchange,
  type RecordingHeader,
} from './recording-format.js';

export interface RecordingWriterOptions {
  dir: string;
  header: Omit<RecordingHeader, 'kind' | 'format'>;
  /** fdatasync each batch of lines (as `listen --capture-sync`). */
  sync?: boolean | undefined;
  /** The timeline file stops growing here: later exchanges are refused rather than the disk filled. */
  maxBytes: number;
  /** Lines waiting for the disk beyond this many bytes make the proxy and the listener answer 503. */
  maxQueueBytes?: number | undefined;
}

function cannot(what: string, path: string, error: unknown, reason: 'recording_exists' | 'io_failed'): LedgerhookError {
  return new LedgerhookError(
    reason === 'recording_exists' ? 'ERR_USAGE' : 'ERR_IO',
    `cannot ${what} ${path}: ${errnoSentence(error)}`,
    { cause: error, details: { reason, path } },
  );
}

/** Refuses a directory that already holds a recording, before anything is opened or made. */
export function assertNoRecording(dir: string): void {
  const path = join(dir, RECORDING_FILE);
  if (existsSync(path))
    throw cannot(
      'start a recording in',
      path,
      Object.assign(new Error('exists'), { code: 'EEXIST' }),
      'recording_exists',
    );
}

/**
 * The recording's timeline file: created new (an existing recording is never appended to or
 * overwritten), one sequence for every line, written through the capture writer (whole lines, a
 * group commit, at most a torn last line after a crash), and bounded in size and in memory.
 */
export class RecordingWriter {
  readonly path: string;
  readonly #writer: CaptureWriter;
  readonly #maxBytes: number;
  readonly #maxQueueBytes: number;
  #seq = 0;
  #bytes = 0;

  private constructor(path: string, writer: CaptureWriter, options: RecordingWriterOptions) {
    this.path = path;
    this.#writer = writer;
    this.#maxBytes = options.maxBytes;
    this.#maxQueueBytes = options.maxQueueBytes ?? DEFAULT_CAPTURE_QUEUE_BYTES;
  }

  static async create(options: RecordingWriterOptions): Promise<RecordingWriter> {
    const path = join(options.dir, RECORDING_FILE);
    try {
      makeDirectory(options.dir);
    } catch (error) {
      throw cannot('create the recording directory', options.dir, error, 'io_failed');
    }
    const header: RecordingHeader = { kind: 'recording', format: RECORDING_FORMAT, ...options.header };
    try {
      // 'wx': a second recorder, or a rerun into the same directory, never mixes two runs in one file.
      writeFileSync(path, `${JSON.stringify(header)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      const exists = (error as NodeJS.ErrnoException).code === 'EEXIST';
      throw cannot('start a recording in', path, error, exists ? 'recording_exists' : 'io_failed');
    }
    const writer = await CaptureWriter.open(path, { sync: options.sync });
    return new RecordingWriter(path, writer, options);
  }

  /** The next place in the timeline: taken when a request or delivery arrives, so lines keep arrival order. */
  nextSeq(): number {
    return this.#seq++;
  }

  get written(): number {
    return this.#writer.written;
  }

  /** False while lines wait for the disk beyond the bound, or once the size limit is reached. */
  hasRoom(): boolean {
    return this.#writer.queuedBytes < this.#maxQueueBytes && this.#bytes < this.#maxBytes;
  }

  get full(): boolean {
    return this.#bytes >= this.#maxBytes;
  }

  /** Resolves once the line is in the file; refused once the recording is as large as it may grow. */
  append(line: RecordedExchange | RecordedDeliveryMark): Promise<void> {
    if (this.full)
      return Promise.reject(
        new LedgerhookError('ERR_IO', `the recording ${this.path} reached its size limit of ${this.#maxBytes} bytes`, {
          details: { reason: 'recording_full', path: this.path, maxBytes: this.#maxBytes },
        }),
      );
    const queued = this.#writer.queuedBytes;
    const written = this.#writer.append(line);
    // The writer counts the line it just queued: its length, without serialising it a second time.
    this.#bytes += Math.max(0, this.#writer.queuedBytes - queued);
    return written;
  }

  close(): Promise<void> {
    return this.#writer.close();
  }
}
