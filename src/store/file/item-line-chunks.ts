import { open } from 'node:fs/promises';
import { LedgerhookError } from '../../errors.js';

const CHUNK = 2 * 1024 * 1024;

/**
 * A file's bytes in chunks that end at a line end ('\n'), the last one with whatever follows the
 * last newline. Each chunk is a fresh buffer: a writer may keep slices of it until it flushes.
 * A read error is reported as the file being unreadable.
 */
export async function* lineChunks(path: string): AsyncGenerator<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    // The bytes after the last newline so far: a line longer than a chunk is gathered as a list of
    // pieces and joined once when it ends (joining at every read would be quadratic in its length).
    let rest: Buffer[] = [];
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, CHUNK, null));
      } catch (error) {
        throw unreadable(path, error);
      }
      if (bytesRead === 0) break;
      const read = buffer.subarray(0, bytesRead);
      const last = read.lastIndexOf(10);
      if (last === -1) {
        rest.push(read); // a line longer than a chunk: read on until it ends
        continue;
      }
      const head = read.subarray(0, last + 1);
      const data = rest.length > 0 ? Buffer.concat([...rest, head]) : head;
      rest = last + 1 < read.length ? [Buffer.from(read.subarray(last + 1))] : [];
      yield data;
    }
    if (rest.length > 0) yield Buffer.concat(rest);
  } finally {
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
