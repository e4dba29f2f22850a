import type { StoredItem } from '../dataset-store.js';
import { copyField, uncopyField } from './postgres-copy.js';
import { insertKey } from './postgres-rows.js';

/** Items serialised in one JSON.stringify: a few hundred keep each string under V8's large-object size. */
const ITEMS_AT_ONCE = 250;

const BOUNDARY = '},{';

/** Plain data, as JSON.parse makes it: serialised alone or in an array, it reads the same ("{...}"). */
const isPlainObject = (item: StoredItem) => {
  const proto = Object.getPrototypeOf(item);
  return (proto === Object.prototype || proto === null) && typeof item.toJSON !== 'function';
};

/** The COPY field of an id's row key: a number needs no escaping, nor a check of its length. */
const keyField = (id: StoredItem['id']) => (typeof id === 'number' ? String(id) : copyField(insertKey(id)));

/**
 * A batch's COPY rows cut out of the one JSON.stringify of the batch, or undefined when it cannot be
 * cut without a parser. In that text every item is "{...}" and items are joined by ",", so each
 * boundary is an occurrence of "},{"; when there are exactly as many occurrences as boundaries, none
 * is inside an item. Backslashes are doubled once over the whole text (COPY's escape; JSON text holds
 * no raw tab, newline or carriage return), which leaves every "},{" where it was.
 */
function cutRows(items: readonly StoredItem[], text: string, prefix: string): string | undefined {
  const escaped = text.includes('\\') ? text.replaceAll('\\', '\\\\') : text;
  const last = items.length - 1;
  let rows = '';
  let start = 1;
  for (let index = 0; index < last; index += 1) {
    const at = escaped.indexOf(BOUNDARY, start);
    if (at === -1) return undefined;
    rows += `${prefix}${keyField((items[index] as StoredItem).id)}\t${escaped.slice(start, at + 1)}\n`;
    start = at + 2;
  }
  if (escaped.indexOf(BOUNDARY, start) !== -1) return undefined;
  return `${rows}${prefix}${keyField((items[last] as StoredItem).id)}\t${escaped.slice(start, -1)}\n`;
}

/** One item per row, each serialised on its own: what cutRows cannot cut. */
function rowsOneByOne(items: readonly StoredItem[], prefix: string): string {
  let rows = '';
  for (const item of items) rows += `${prefix}${keyField(item.id)}\t${copyField(JSON.stringify(item))}\n`;
  return rows;
}

/** UTF-8 bytes of a text: text of one-byte characters below 0x80 (the usual JSON) copied as they are. */
const bytesOf = (text: string) =>
  Buffer.byteLength(text) === text.length ? Buffer.from(text, 'latin1') : Buffer.from(text, 'utf8');

/**
 * A page as COPY rows, one chunk of bytes per few hundred items, serialised once for everything the
 * store does with them: the load's COPY, and a resumable read's kept pages. The bytes of each item are
 * those of JSON.stringify of the item (a few hundred items serialised in one call, which costs less
 * than one call per item).
 */
export function pageRows(items: readonly StoredItem[], prefix: string): Buffer[] {
  const rows: Buffer[] = [];
  // A toJSON anywhere an array inherits from would be called with an index as its key here.
  const whole = !('toJSON' in items) && items.every(isPlainObject);
  for (let start = 0; start < items.length; start += ITEMS_AT_ONCE) {
    const batch = items.length <= ITEMS_AT_ONCE ? items : items.slice(start, start + ITEMS_AT_ONCE);
    const text = whole ? cutRows(batch, JSON.stringify(batch), prefix) : undefined;
    rows.push(bytesOf(text ?? rowsOneByOne(batch, prefix)));
  }
  return rows;
}

/** The items of rows as pageRows writes them (any prefix): the last field of each line, as JSON. */
export function itemsOfRows(rows: string): unknown {
  const items: string[] = [];
  for (const line of rows.split('\n')) if (line !== '') items.push(uncopyField(line.slice(line.lastIndexOf('\t') + 1)));
  return JSON.parse(`[${items.join(',')}]`);
}
