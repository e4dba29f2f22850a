import type { ItemBytes } from '../../dataset/item-bytes.js';
import type { Item } from './data-file.js';

/** A page of items as lines of the data file. */
export interface PageLines {
  /** The items' lines with ",\n" between them (none after the last), as AtomicItemWriter.copyLines takes them. */
  lines: Buffer;
  count: number;
}

const BOUNDARY = '},{';

/** Plain data, as JSON.parse makes it: serialised alone or in an array, it reads the same ("{...}"). */
const isPlainObject = (item: Item) => {
  const proto = Object.getPrototypeOf(item);
  return (proto === Object.prototype || proto === null) && typeof item.toJSON !== 'function';
};

/**
 * The lines of a page serialised in one JSON.stringify of the whole array rather than one call per
 * item (serialising is the largest cost of a full read after parsing, and one call costs less than
 * many), cut apart without a parser: in that text, each item is "{...}" and the items are joined by ",", so
 * every boundary between two items is an occurrence of "},{". When there are exactly as many
 * occurrences as boundaries, none can be inside an item (in a string, or a nested array of
 * objects), and replacing them all puts the line breaks exactly between the items. The bytes are
 * those of JSON.stringify of each item, whatever the items hold. Undefined when the count differs
 * (an item holds "},{"), or for an item that is not plain data: the caller serialises item by item.
 */
export function pageLines(items: readonly Item[]): PageLines | undefined {
  // A toJSON anywhere an array or an object inherits from would be called with another key here.
  if (items.length === 0 || 'toJSON' in items || !items.every(isPlainObject)) return undefined;
  const text = JSON.stringify(items);
  let found = 0;
  for (let at = text.indexOf(BOUNDARY); at !== -1 && found < items.length; at = text.indexOf(BOUNDARY, at + 3))
    found += 1;
  if (found !== items.length - 1) return undefined;
  const inner = text.slice(1, -1);
  return {
    lines: Buffer.from(inner.replaceAll(BOUNDARY, '},\n{')),
    count: items.length,
  };
}

/** The lines of `items` as JSON.stringify writes each one: by pageLines, or one by one where it gives way. */
export function serialisedLines(items: readonly Item[]): Buffer {
  return pageLines(items)?.lines ?? Buffer.from(items.map((item) => JSON.stringify(item)).join(',\n'));
}

const COMMA = 0x2c;
const NEWLINE = 0x0a;

/**
 * Items serialised in one JSON.stringify: ~200 bytes each, their text stays well under 128 KiB (a
 * longer string goes to V8's large-object space, freed only by a full collection).
 */
export const ITEMS_AT_ONCE = 250;

/** Where the run of items from `from` that are not compact ends (ITEMS_AT_ONCE of them at most). */
function runEnd(located: ItemBytes, from: number): number {
  const last = Math.min(located.count, from + ITEMS_AT_ONCE);
  let end = from + 1;
  while (end < last && !located.isCompact(end)) end += 1;
  return end;
}

/**
 * The lines of a page's items (`items`, as JSON.parse read them from `located.bytes`): each compact
 * item's bytes as they stand in the response (item-bytes.ts), the others serialised. Compact means
 * that JSON.stringify writes exactly those bytes, so these are the bytes of serialisedLines(items),
 * without serialising the items again: one pass to find them, one copy, into `allocate`'s buffer.
 */
export function responseLines(
  items: readonly Item[],
  located: ItemBytes,
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  const count = items.length;
  const serialised: Buffer[] = [];
  let size = 2 * (count - 1);
  for (let from = 0; from < count; ) {
    if (located.isCompact(from)) {
      size += located.end(from) - located.start(from);
      from += 1;
      continue;
    }
    const end = runEnd(located, from);
    const lines = serialisedLines(items.slice(from, end));
    serialised.push(lines);
    // Its lines hold the ",\n" between its own items.
    size += lines.length - 2 * (end - from - 1);
    from = end;
  }
  const out = allocate(size);
  const { bytes } = located;
  let at = 0;
  let run = 0;
  for (let from = 0; from < count; ) {
    if (from > 0) {
      out[at] = COMMA;
      out[at + 1] = NEWLINE;
      at += 2;
    }
    if (located.isCompact(from)) {
      // A view and one native copy: Buffer#copy costs more a call, and there is a call per item.
      const start = located.start(from);
      const length = located.end(from) - start;
      out.set(new Uint8Array(bytes.buffer, bytes.byteOffset + start, length), at);
      at += length;
      from += 1;
    } else {
      const lines = serialised[run] ?? Buffer.alloc(0);
      run += 1;
      at += lines.copy(out, at);
      from = runEnd(located, from);
    }
  }
  return out;
}
