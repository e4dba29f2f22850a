import type { StoredItem } from '../dataset-store.js';
import { copyField } from './postgres-copy.js';
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

/** A page as Postgres takes it: COPY rows (one string per batch) and, when asked, the page as a JSON array. */
export interface PageText {
  /** Rows of COPY's text format: `prefix`, the row key, the item's JSON text. */
  readonly rows: string[];
  /** The items as one JSON array, each as JSON.stringify writes it (absent unless asked for). */
  readonly json: string | undefined;
}

/**
 * Serialises a page once for everything the store does with it: the rows of a COPY and the JSON
 * array text an upsert or a kept page takes. The bytes of each item are those of JSON.stringify of
 * the item (a few hundred items serialised at once: a third less time than one call per item).
 */
export function pageText(items: readonly StoredItem[], prefix: string, withJson: boolean): PageText {
  const rows: string[] = [];
  const parts: string[] = [];
  // A toJSON anywhere an array inherits from would be called with an index as its key here.
  const whole = !('toJSON' in items) && items.every(isPlainObject);
  for (let start = 0; start < items.length; start += ITEMS_AT_ONCE) {
    const batch = items.length <= ITEMS_AT_ONCE ? items : items.slice(start, start + ITEMS_AT_ONCE);
    if (!whole) {
      rows.push(rowsOneByOne(batch, prefix));
      if (withJson) parts.push(batch.map((item) => JSON.stringify(item)).join(','));
      continue;
    }
    const text = JSON.stringify(batch);
    rows.push(cutRows(batch, text, prefix) ?? rowsOneByOne(batch, prefix));
    if (withJson) parts.push(text.slice(1, -1));
  }
  return { rows, json: withJson ? `[${parts.join(',')}]` : undefined };
}
