import { LedgerhookError } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import { readLines } from '../../util/read-lines.js';
import type { Item } from './data-file.js';
import { isItemId } from '../../dataset/item-id.js';

export function dataFileDamaged(path: string, what: string): LedgerhookError {
  return new LedgerhookError('ERR_IO', `${path} is damaged: ${what}`, {
    details: { reason: 'data_file_damaged', path },
  });
}

/** One item line's text (without its comma) as an item, or the damage it shows. */
export function parseItemLine(path: string, text: string, lineNumber: number): Item {
  let item: unknown;
  try {
    item = JSON.parse(text);
  } catch {
    throw dataFileDamaged(path, `line ${lineNumber} is not JSON`);
  }
  if (!isObject(item) || !isItemId(item.id))
    throw dataFileDamaged(path, `line ${lineNumber} is not an item with an id`);
  return item as Item;
}

/**
 * Reads a dataset file item by item without loading it whole, with the exact text of each item
 * line (for the digest). Only ledgerhook's layout is accepted: anything else (an empty file, a cut
 * array, a line that is not an item with an id) is reported as damage, never guessed around.
 */
export async function* readItemLines(path: string): AsyncGenerator<{ line: string; item: Item }> {
  const lines = readLines(path);
  let lineNumber = 0;
  let state: 'open' | 'items' | 'closed' = 'open';
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (state === 'closed') {
        if (line.trim() === '') continue;
        throw dataFileDamaged(path, `text after the closing ] (line ${lineNumber})`);
      }
      if (state === 'open') {
        if (line !== '[') throw dataFileDamaged(path, `line ${lineNumber} is not the opening [`);
        state = 'items';
        continue;
      }
      if (line === ']') {
        state = 'closed';
        continue;
      }
      const text = line.endsWith(',') ? line.slice(0, -1) : line;
      yield { line: text, item: parseItemLine(path, text, lineNumber) };
    }
  } catch (error) {
    if (error instanceof LedgerhookError) throw error;
    throw new LedgerhookError('ERR_IO', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { reason: 'data_file_unreadable', path },
    });
  } finally {
    await lines.return(undefined);
  }
  if (state === 'open') throw dataFileDamaged(path, 'it is empty');
  if (state === 'items') throw dataFileDamaged(path, 'it ends before its closing ]');
}

/** The items of a dataset file, in file order. */
export async function* readItems(path: string): AsyncGenerator<Item> {
  for await (const { item } of readItemLines(path)) yield item;
}
