import { open } from 'node:fs/promises';
import { LedgerhookError } from '../../errors.js';

const CHUNK = 2 * 1024 * 1024;

/**
 * A file's bytes in chunks that end at a line end ('\n'), the last one with whatever follows the
 * last newline. Each chunk is a fresh buffer: a writer may keep slices of it until it flushes.
 * A read error is reported as the file being unreadable.
 *
 * The next read is started before a chunk is handed out, so that the disk (or page cache)
 * works while the caller checksums and writes; and a line that straddles two reads is handed out
 * alone (a copy of that line only), instead of copying the whole next read behind it.
 */
export async function* lineChunks(path: string): AsyncGenerator<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  const readNext = () => {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const reading = handle.read(buffer, 0, CHUNK, null).then(({ bytesRead }) => buffer.subarray(0, bytesRead));
    reading.catch(() => {}); // waited for below; not an unhandled rejection while the caller works
    return reading;
  };
  let next: Promise<Buffer> | undefined;
  try {
    // The bytes after the last newline so far: a line longer than a read is gathered as a list of
    // pieces and joined once when it ends (joining at every read would be quadratic in its length).
    let rest: Buffer[] = [];
    next = readNext();
    for (;;) {
      let read: Buffer;
      try {
        read = await next;
      } catch (error) {
        throw unreadable(path, error);
      }
      if (read.length === 0) break;
      next = readNext();
      let from = 0;
      if (rest.length > 0) {
        const first = read.indexOf(10);
        if (first === -1) {
          rest.push(read); // a line longer than a read: read on until it ends
          continue;
        }
        yield Buffer.concat([...rest, read.subarray(0, first + 1)]);
        rest = [];
        from = first + 1;
      }
      const last = read.lastIndexOf(10);
      if (last >= from) yield read.subarray(from, last + 1);
      const tail = Math.max(last + 1, from);
      if (tail < read.length) rest = [read.subarray(tail)];
    }
    if (rest.length > 0) yield Buffer.concat(rest);
  } finally {
    await next?.catch(() => {});
    await handle.close().catch(() => {});
  }
}

function unreadable(path: string, error: unknown): LedgerhookError {
  return new LedgerhookError('ERR_IO', `cannot read ${path}: ${(error as Error).message}`, {
    cause: error,
    details: { reason: 'data_file_unreadable', path },
  });
}

const ID_PREFIX_LENGTH = 6; // {"id":
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/**
 * The id of an item line written as ledgerhook writes the service's integer ids (`{"id":123,...`),
 * read from its bytes without parsing the line; undefined for anything else (a string id, another
 * key first, a number that is not a plain safe integer), which the caller then parses in full.
 * The line's other bytes are vouched for by the file's checksum, not by a parse.
 */
export function plainIntegerId(bytes: Buffer, start: number, end: number): number | undefined {
  // `{"id":` byte by byte: a Buffer compare is a native call per line, slower at this size.
  if (
    end - start < 8 ||
    bytes[start] !== 123 ||
    bytes[start + 1] !== 34 ||
    bytes[start + 2] !== 105 ||
    bytes[start + 3] !== 100 ||
    bytes[start + 4] !== 34 ||
    bytes[start + 5] !== 58
  )
    return undefined;
  let at = start + ID_PREFIX_LENGTH;
  const negative = bytes[at] === MINUS;
  if (negative) at += 1;
  const first = at;
  let value = 0;
  for (; at < end; at += 1) {
    const byte = bytes[at] ?? 0;
    if (byte < ZERO || byte > NINE) break;
    value = value * 10 + (byte - ZERO);
  }
  const digits = at - first;
  const next = bytes[at];
  if (digits === 0 || digits > 15 || (digits > 1 && bytes[first] === ZERO)) return undefined;
  if (next !== 44 && next !== 125) return undefined; // ',' or '}'
  return negative ? -value : value;
}
