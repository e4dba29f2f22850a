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

/** "cursor", the key of the envelope's next-page cursor. */
const CURSOR = [0x63, 0x75, 0x72, 0x73, 0x6f, 0x72];

/** Going back from `at` past whitespace: where the byte before it is. */
const skipSpaceBack = (bytes: Uint8Array, at: number): number => {
  let i = at;
  while (isSpace(bytes[i])) i -= 1;
  return i;
};

/** The opening quote of the string that ends (its closing quote) at `end`, if no escape is in it; else -1. */
function stringStartBack(bytes: Uint8Array, end: number): number {
  for (let i = end - 1; i >= 0; i -= 1) {
    const byte = bytes[i];
    if (byte === Byte.Backslash) return -1;
    if (byte === Byte.Quote) return i;
  }
  return -1;
}

/**
 * The cursor the envelope in `bytes` ends with, read from its end without parsing it: when its last
 * members are strings without escapes and one of them is "cursor" (the last one of that name, as
 * JSON.parse keeps), a non-empty string; undefined for anything else (another value there, no such
 * member). A hint only, for sending the next request while the page is parsed: bytes that are no
 * JSON may give one too, and the parsed envelope decides (sync/paginate.ts).
 */
export function trailingCursor(bytes: Uint8Array): string | undefined {
  let i = skipSpaceBack(bytes, bytes.length - 1);
  if (bytes[i] !== Byte.CloseObject) return undefined;
  for (;;) {
    const valueEnd = skipSpaceBack(bytes, i - 1);
    if (bytes[valueEnd] !== Byte.Quote) return undefined;
    const valueStart = stringStartBack(bytes, valueEnd);
    const colon = skipSpaceBack(bytes, valueStart - 1);
    if (valueStart < 0 || bytes[colon] !== Byte.Colon) return undefined;
    const keyEnd = skipSpaceBack(bytes, colon - 1);
    const keyStart = bytes[keyEnd] === Byte.Quote ? stringStartBack(bytes, keyEnd) : -1;
    if (keyStart < 0) return undefined;
    if (keyEnd - keyStart === CURSOR.length + 1 && CURSOR.every((byte, at) => bytes[keyStart + 1 + at] === byte))
      return valueEnd - valueStart > 1
        ? Buffer.from(bytes.buffer, bytes.byteOffset + valueStart + 1, valueEnd - valueStart - 1).toString('latin1')
        : undefined;
    i = skipSpaceBack(bytes, keyStart - 1);
    if (bytes[i] !== Byte.Comma) return undefined;
  }
}
