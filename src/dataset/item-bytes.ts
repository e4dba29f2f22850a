import { isUtf8 } from 'node:buffer';
import { Byte, compactObjectEnd, isSpace, valueEnd } from './compact-json.js';

/** "data", the key of the envelope's items. */
const DATA = [0x64, 0x61, 0x74, 0x61];

/**
 * Where each item of a list page stands in the bytes of the response JSON.parse read it from, and
 * whether its bytes there are compact (compact-json.ts): exactly what JSON.stringify writes for the
 * parsed item. A store keeps a compact item's bytes as they stand and serialises only the others.
 */
export class ItemBytes {
  readonly bytes: Buffer;
  /** Per item, where its bytes start and end (exclusive). */
  readonly #at: Int32Array;
  readonly #compact: Uint8Array;
  /** Items whose bytes are compact. */
  readonly compactCount: number;

  constructor(bytes: Buffer, at: Int32Array, compact: Uint8Array, compactCount: number) {
    this.bytes = bytes;
    this.#at = at;
    this.#compact = compact;
    this.compactCount = compactCount;
  }

  get count(): number {
    return this.#compact.length;
  }

  start(index: number): number {
    return this.#at[2 * index] ?? 0;
  }

  end(index: number): number {
    return this.#at[2 * index + 1] ?? 0;
  }

  isCompact(index: number): boolean {
    return this.#compact[index] === 1;
  }
}

const skipSpace = (bytes: Uint8Array, at: number): number => {
  let i = at;
  while (isSpace(bytes[i])) i += 1;
  return i;
};

/**
 * The `count` items of the data array of the page `bytes` hold (the whole body its envelope was
 * parsed from), or undefined where they cannot be told apart there: bytes that are not UTF-8 (the
 * text parsed was not quite them), an envelope key written with an escape or a "data" key twice
 * (which one JSON.parse kept is not told), or another number of items.
 */
export function locateItems(bytes: Buffer, count: number): ItemBytes | undefined {
  if (!isUtf8(bytes)) return undefined;
  const length = bytes.length;
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== Byte.OpenObject) return undefined;
  i = skipSpace(bytes, i + 1);
  let found: ItemBytes | undefined;
  while (bytes[i] === Byte.Quote) {
    let close = i + 1;
    while (close < length && bytes[close] !== Byte.Quote && bytes[close] !== Byte.Backslash) close += 1;
    if (bytes[close] !== Byte.Quote) return undefined;
    const isData = close - i === 5 && DATA.every((byte, at) => bytes[i + 1 + at] === byte);
    i = skipSpace(bytes, close + 1);
    if (bytes[i] !== Byte.Colon) return undefined;
    i = skipSpace(bytes, i + 1);
    if (isData) {
      if (found !== undefined || bytes[i] !== Byte.OpenArray) return undefined;
      const at = new Int32Array(2 * count);
      const compact = new Uint8Array(count);
      const scanned = scanItems(bytes, i + 1, at, compact);
      if (scanned === undefined) return undefined;
      found = new ItemBytes(bytes, at, compact, scanned.compact);
      i = scanned.end;
    } else i = valueEnd(bytes, i, length);
    if (i < 0) return undefined;
    i = skipSpace(bytes, i);
    if (bytes[i] === Byte.Comma) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === Byte.CloseObject) return found;
    else return undefined;
  }
  return undefined;
}

/**
 * The items of a data array from `from` (after its "["): each one's bytes in `at` and whether they
 * are compact; undefined unless there are exactly as many as `at` has room for.
 */
function scanItems(
  bytes: Uint8Array,
  from: number,
  at: Int32Array,
  compact: Uint8Array,
): { end: number; compact: number } | undefined {
  const length = bytes.length;
  const count = compact.length;
  let compactCount = 0;
  let i = skipSpace(bytes, from);
  if (bytes[i] === Byte.CloseArray) return count === 0 ? { end: i + 1, compact: 0 } : undefined;
  for (let index = 0; index < count; index += 1) {
    let end = compactObjectEnd(bytes, i, length);
    if (end < 0) end = valueEnd(bytes, i, length);
    else {
      compact[index] = 1;
      compactCount += 1;
    }
    if (end < 0) return undefined;
    at[2 * index] = i;
    at[2 * index + 1] = end;
    i = skipSpace(bytes, end);
    if (bytes[i] === Byte.Comma) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === Byte.CloseArray)
      return index === count - 1 ? { end: i + 1, compact: compactCount } : undefined;
    else return undefined;
  }
  return undefined;
}
