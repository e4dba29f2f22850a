import type { AtomicItemWriter } from './atomic-item-writer.js';
import type { FileDigest, Item } from './data-file.js';
import { dataFileDamaged, parseItemLine, readItems } from './read-items.js';
import { lineChunks, plainIntegerId } from './item-line-chunks.js';
import { canonical, compareIds, type ItemId } from '../../dataset/item-id.js';
import type { ChangeSet, CommitResult, StoredItem } from '../dataset-store.js';
import { crc32 } from 'node:zlib';
import { FileChecksum } from './file-checksum.js';

const NEWLINE = 10;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;

/** The merge met something a file it wrote never holds: damageOf says what. */
class NotAsWritten extends Error {}

/**
 * Merges `changes` into `file` into `writer`: an id in `upserts` is replaced or inserted (and stays
 * even if deletedIds names it too, since data is its current state); an id only in deletedIds is
 * dropped. The old file is checked against what was written last (`expected`: the committed state,
 * or a pending one) and a damaged one fails the merge before anything is put in place.
 *
 * The file is merged without reading it line by line. Each chunk read is added to the old file's
 * checksum (one native call) and copied to the new file as slices; the place of each change is
 * found by a binary search on the ids of a few lines (the file is sorted: it was written so), and
 * only the lines changed are parsed. The checksum over every byte is what vouches for the lines not
 * looked at, and every merge checks it, whatever the file's fingerprint says: a merge that did not
 * would record a fresh checksum over damage the fingerprint cannot see (a failing disk), laundering
 * it. When it does not match, or the file is not laid out as ledgerhook writes it, nothing is put in
 * place and the file is read once more to say what is wrong (damageOf).
 */
export async function mergeIntoFile(
  file: string,
  changes: ChangeSet,
  expected: readonly FileDigest[],
  writer: AtomicItemWriter,
  /** Told of each item dropped, with its last content (for the history and tombstones). */
  onRemoved?: (item: Item) => void,
): Promise<CommitResult> {
  let merged: Awaited<ReturnType<typeof mergeByChecksum>>;
  try {
    merged = await mergeByChecksum(file, changes, expected, writer);
  } catch (error) {
    if (error instanceof NotAsWritten) throw await damageOf(file, expected);
    throw error;
  }
  for (const item of merged.removed) onRemoved?.(item);
  return merged.result;
}

/**
 * What is wrong with a file the merge refused, as a reader sees it: its layout, a line that is not
 * an item, ids out of order, an item count other than the last sync wrote; else its bytes differ.
 */
async function damageOf(file: string, expected: readonly FileDigest[]): Promise<Error> {
  let items = 0;
  let previous: ItemId | undefined;
  try {
    for await (const item of readItems(file)) {
      if (previous !== undefined && compareIds(previous, item.id) >= 0)
        return dataFileDamaged(file, `it is not sorted by id (id ${String(item.id)} after ${String(previous)})`);
      previous = item.id;
      items += 1;
    }
  } catch (error) {
    return error as Error;
  }
  const want = expected[0];
  return dataFileDamaged(
    file,
    want && want.items !== items
      ? `it holds ${items} items where the last sync wrote ${want.items}`
      : 'its content differs from what the last sync wrote',
  );
}

/** The id of the line starting at `start` (its end is `end`, the comma excluded). */
function idAt(file: string, chunk: Buffer, start: number, end: number): ItemId {
  const plain = plainIntegerId(chunk, start, end);
  if (plain !== undefined) return plain;
  try {
    return parseItemLine(file, chunk.toString('utf8', start, end), 0).id;
  } catch {
    throw new NotAsWritten();
  }
}

async function mergeByChecksum(
  file: string,
  changes: ChangeSet,
  expected: readonly FileDigest[],
  writer: AtomicItemWriter,
): Promise<{ result: CommitResult; removed: Item[] }> {
  const upserts = [...changes.upserts].sort((a, b) => compareIds(a.id, b.id));
  const deleted = changes.deletedIds.map(canonical).sort(compareIds);
  const removed: Item[] = [];
  const checksum = new FileChecksum();
  let nextUpsert = 0;
  let nextDeleted = 0;
  let replaced = 0;
  let state: 'open' | 'items' | 'closed' = 'open';
  const target = (): ItemId | undefined => {
    const upsert = upserts[nextUpsert]?.id;
    const gone = deleted[nextDeleted];
    if (upsert === undefined) return gone;
    return gone === undefined || compareIds(upsert, gone) <= 0 ? upsert : gone;
  };
  const write = async (item: StoredItem) => {
    // write() returns a promise only when its buffer is flushed: no await (and no tick) per item.
    const pending = writer.write(item);
    if (pending) await pending;
  };
  // How far into the chunk the old file's checksum has got: each copied slice's CRC is taken once,
  // for both files (combined into the old one here, into the new one by the writer).
  let checked = 0;
  const check = (chunk: Buffer, to: number) => {
    if (to > checked) checksum.add(chunk.subarray(checked, to));
    checked = Math.max(checked, to);
  };
  /** Lines [from, to) of `chunk` as they are, but the ",\n" after the last (only "\n" after the file's last item). */
  const copy = async (chunk: Buffer, from: number, to: number) => {
    if (to <= from) return;
    const lines = chunk.subarray(from, to - (chunk[to - 2] === COMMA ? 2 : 1));
    check(chunk, from);
    const crc = crc32(lines);
    checksum.append(crc, lines.length);
    checked = from + lines.length;
    const pending = writer.copyRaw(lines, crc);
    if (pending) await pending;
  };
  for await (const chunk of lineChunks(file)) {
    checked = 0;
    if (state === 'closed') throw new NotAsWritten();
    let at = 0;
    if (state === 'open') {
      if (chunk[0] !== OPEN || chunk[1] !== NEWLINE) throw new NotAsWritten();
      at = 2;
      state = 'items';
    }
    // Where this chunk's item lines end: before the closing "]\n" when it holds it.
    const length = chunk.length;
    const closing = length - at >= 2 && chunk[length - 2] === CLOSE && chunk[length - 1] === NEWLINE;
    const end = closing && (length - 2 === at || chunk[length - 3] === NEWLINE) ? length - 2 : length;
    if (end !== length) state = 'closed';
    else if (chunk[length - 1] !== NEWLINE) throw new NotAsWritten();
    // Each change that falls in this chunk (or after the last item, in the closing one).
    for (let id = target(); id !== undefined; id = target()) {
      // The first line at or after `at` whose id is not below `id`: a binary search on line starts.
      let low = at;
      let high = end;
      while (low < high) {
        const middle = (low + high) >>> 1;
        // (A negative offset would search from the end: a line start at 0 is found without a search.)
        const start = middle === 0 ? 0 : chunk.lastIndexOf(NEWLINE, middle - 1) + 1;
        const lineEnd = chunk.indexOf(NEWLINE, start);
        const contentEnd = chunk[lineEnd - 1] === COMMA ? lineEnd - 1 : lineEnd;
        if (compareIds(idAt(file, chunk, start, contentEnd), id) < 0) low = lineEnd + 1;
        else high = start;
      }
      if (low === end && state !== 'closed') break; // beyond this chunk
      await copy(chunk, at, low);
      at = low;
      if (low === end) {
        // After the file's last item: every change left is an insert.
        for (let upsert = upserts[nextUpsert]; upsert !== undefined; upsert = upserts[++nextUpsert])
          await write(upsert);
        nextDeleted = deleted.length;
        break;
      }
      const lineEnd = chunk.indexOf(NEWLINE, low);
      const comma = chunk[lineEnd - 1] === COMMA;
      const contentEnd = comma ? lineEnd - 1 : lineEnd;
      const lineId = idAt(file, chunk, low, contentEnd);
      for (let upsert = upserts[nextUpsert]; upsert !== undefined && compareIds(upsert.id, lineId) < 0; ) {
        await write(upsert);
        upsert = upserts[++nextUpsert];
      }
      for (let gone = deleted[nextDeleted]; gone !== undefined && compareIds(gone, lineId) < 0; )
        gone = deleted[++nextDeleted];
      const same = upserts[nextUpsert];
      const gone = deleted[nextDeleted];
      if (gone !== undefined && compareIds(gone, lineId) === 0) nextDeleted += 1;
      if (same !== undefined && compareIds(same.id, lineId) === 0) {
        nextUpsert += 1;
        replaced += 1;
        await write(same);
      } else if (gone !== undefined && compareIds(gone, lineId) === 0) {
        try {
          removed.push(parseItemLine(file, chunk.toString('utf8', low, contentEnd), 0));
        } catch {
          throw new NotAsWritten();
        }
      } else continue; // the line stays: it starts the next run
      at = lineEnd + 1;
    }
    await copy(chunk, at, end);
    check(chunk, chunk.length);
  }
  if (state !== 'closed') throw new NotAsWritten();
  const found = checksum.toString();
  const matched = expected.find((want) => want.checksum === found);
  if (!matched) throw new NotAsWritten();
  const copied = matched.items - replaced - removed.length;
  writer.countCopied(copied);
  return {
    result: { total: copied + upserts.length, upserted: upserts.length, removed: removed.length },
    removed,
  };
}
