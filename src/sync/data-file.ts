import { createReadStream } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { LedgerhookError } from '../errors.js';
import type { ItemId } from './item-id.js';

/**
 * A dataset file: a JSON array, one item per line, sorted by id. It is valid JSON for any
 * tool, and it streams line by line, so neither writing nor merging holds the dataset in memory.
 *
 *   [
 *   {"id":1,...},
 *   {"id":2,...}
 *   ]
 */
export type Item = Record<string, unknown> & { id: ItemId };

const WRITE_BUFFER = 256 * 1024;

/**
 * Writes a new version of a file beside it under a temporary name; `commit` fsyncs and renames
 * it over the old one (atomic on POSIX), `discard` removes it. Until commit, the old file stands.
 */
export class AtomicItemWriter {
  readonly #handle: FileHandle;
  readonly #target: string;
  readonly #temp: string;
  #chunks: string[] = [];
  #size = 0;
  #count = 0;
  #done = false;

  private constructor(handle: FileHandle, target: string, temp: string) {
    this.#handle = handle;
    this.#target = target;
    this.#temp = temp;
  }

  static async create(target: string): Promise<AtomicItemWriter> {
    const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o644);
      const writer = new AtomicItemWriter(handle, target, temp);
      writer.#push('[\n');
      return writer;
    } catch (error) {
      throw new LedgerhookError('ERR_IO', `cannot write in ${dirname(target)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
  }

  get count(): number {
    return this.#count;
  }

  #push(text: string): void {
    this.#chunks.push(text);
    this.#size += text.length;
  }

  async #flush(): Promise<void> {
    if (this.#chunks.length === 0) return;
    const text = this.#chunks.join('');
    this.#chunks = [];
    this.#size = 0;
    await this.#handle.write(text);
  }

  /** Items must come in id order; the caller guarantees it. */
  write(item: Item): Promise<void> | undefined {
    return this.writeJson(JSON.stringify(item));
  }

  /** An item already serialised as one line of JSON. */
  writeJson(line: string): Promise<void> | undefined {
    this.#push(`${this.#count === 0 ? '' : ',\n'}${line}`);
    this.#count += 1;
    return this.#size >= WRITE_BUFFER ? this.#flush() : undefined;
  }

  /** The temporary file, readable after `seal`. */
  get tempPath(): string {
    return this.#temp;
  }

  /** Finishes and closes the temporary file without putting it in place (to be read back). */
  async seal(): Promise<void> {
    this.#push(this.#count === 0 ? ']\n' : '\n]\n');
    await this.#flush();
    await this.#handle.close();
    this.#done = true;
  }

  async commit(): Promise<void> {
    this.#push(this.#count === 0 ? ']\n' : '\n]\n');
    try {
      await this.#flush();
      await this.#handle.sync();
      await this.#handle.close();
      this.#done = true;
      await rename(this.#temp, this.#target);
      await syncDirectory(dirname(this.#target));
    } catch (error) {
      await this.discard();
      throw new LedgerhookError('ERR_IO', `cannot write ${this.#target}: ${(error as Error).message}`, { cause: error });
    }
  }

  async discard(): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#handle.close().catch(() => {});
    }
    await rm(this.#temp, { force: true });
  }
}

/** So that a rename survives a power cut, the directory entry is flushed too (not possible on every OS). */
async function syncDirectory(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; the rename is still atomic there.
  }
}

/** Writes a whole JSON document atomically (non-envelope endpoints). */
export async function writeDocumentAtomically(target: string, document: unknown): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.write(`${JSON.stringify(document, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncDirectory(dirname(target));
  } catch (error) {
    await rm(temp, { force: true });
    throw new LedgerhookError('ERR_IO', `cannot write ${target}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads a dataset file item by item without loading it whole. A file in another layout
 * (edited by hand, pretty-printed) is still read, by parsing it whole.
 */
export async function* readItems(path: string): AsyncGenerator<Item> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNumber = 0;
  let sawOpen = false;
  let foreign = false;
  let yielded = 0;
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      const line = raw.trim();
      if (line === '') continue;
      if (!sawOpen) {
        if (line !== '[') {
          foreign = true;
          break;
        }
        sawOpen = true;
        continue;
      }
      if (line === ']') return;
      const text = line.endsWith(',') ? line.slice(0, -1) : line;
      let item: unknown;
      try {
        item = JSON.parse(text);
      } catch {
        foreign = true;
        break;
      }
      yielded += 1;
      yield item as Item;
    }
  } finally {
    lines.close();
  }
  if (foreign && yielded > 0) throw new LedgerhookError('ERR_IO', `${path} is not in ledgerhook's one-item-per-line layout (line ${lineNumber}); run with --full to rebuild it`);
  if (foreign) {
    const { readFile } = await import('node:fs/promises');
    let all: unknown;
    try {
      all = JSON.parse(await readFile(path, 'utf8'));
    } catch {
      throw new LedgerhookError('ERR_IO', `${path} is not a dataset file ledgerhook can read (line ${lineNumber}); move it away or run with --full`);
    }
    if (!Array.isArray(all)) throw new LedgerhookError('ERR_IO', `${path} does not hold a JSON array; move it away or run with --full`);
    yield* all as Item[];
  } else if (sawOpen) {
    throw new LedgerhookError('ERR_IO', `${path} ends before its closing ]: it is incomplete; run with --full to rebuild it`);
  }
}
