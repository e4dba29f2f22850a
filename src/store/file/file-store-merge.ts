import type { AtomicItemWriter, FileDigest, Item } from './data-file.js';
import { ItemDigest } from './data-file.js';
import { dataFileDamaged, parseItemLine } from './read-items.js';
import { lineChunks, plainIntegerId } from './item-line-chunks.js';
import { canonical, compareIds, type ItemId } from '../../dataset/item-id.js';
import type { ChangeSet, CommitResult } from '../dataset-store.js';

function sameDigest(a: FileDigest, b: FileDigest): boolean {
  return a.items === b.items && a.checksum === b.checksum;
}

const NEWLINE = 10;
const CR = 13;
const COMMA = 44;
const CLOSE = 93;
const OPEN = 91;

/** Ids compared fast when both are numbers (the usual case), by the shared order otherwise. */
const before = (a: ItemId, b: ItemId) =>
  typeof a === 'number' && typeof b === 'number' ? a < b : compareIds(a, b) < 0;

/**
 * One streaming pass over the old (sorted) file and the sorted changes: an id in `upserts` is
 * replaced or inserted (and stays even if deletedIds names it too, since data is its current
 * state); an id only in deletedIds is dropped. The old file is checked on the way against what
 * was written last (`expected`: the committed state, or a pending one): a damaged file fails the
 * merge before anything is put in place.
 *
 * It works on bytes (issue 23): a run of unchanged lines is copied to the new file as one slice,
 * and its checksum bytes ("line\n" each) gathered once and hashed in one call per digest; only a
 * line's id is read, from its bytes when it is a plain integer. A line is parsed whole only when it
 * is dropped (its last content goes to the history) or its id is not plain. The checksum over every
 * line is what vouches for the rest, as it did when every line was parsed. Every merge checks it,
 * whatever the file's fingerprint says: the bytes are read anyway, hashing them again costs one pass
 * over bytes already gathered for the new file's checksum, and a merge that only counted them would
 * record a fresh checksum over damage the fingerprint cannot see (a failing disk), laundering it.
 */
export async function mergeIntoFile(
  file: string,
  changes: ChangeSet,
  expected: readonly FileDigest[],
  writer: AtomicItemWriter,
  /** Told of each item dropped, with its last content (for the history and tombstones). */
  onRemoved?: (item: Item) => void,
): Promise<CommitResult> {
  const sorted = [...changes.upserts].sort((a, b) => compareIds(a.id, b.id));
  const deleted = changes.deletedIds.map(canonical).sort(compareIds);
  const digest = new ItemDigest();
  let next = 0;
  let nextDeleted = 0;
  let total = 0;
  let removed = 0;
  let previous: ItemId | undefined;
  let state: 'open' | 'items' | 'closed' = 'open';
  let lineNumber = 0;
  // The run of unchanged lines being copied: where it starts in the chunk, and its checksum bytes.
  let scratch = Buffer.allocUnsafe(1024 * 1024);
  let gathered = 0;
  let runStart = -1;
  let runEnd = 0;
  let runCount = 0;
  let chunk: Buffer = Buffer.alloc(0);
  const endRun = () => {
    if (runCount === 0) return undefined;
    const gatheredLines = scratch.subarray(0, gathered);
    digest.addLines(gatheredLines, runCount);
    total += runCount;
    const pending = writer.copyLines(chunk.subarray(runStart, runEnd), gatheredLines, runCount);
    runCount = 0;
    gathered = 0;
    runStart = -1;
    return pending;
  };
  const putChangesBelow = async (id: ItemId | undefined) => {
    for (let change = sorted[next]; change !== undefined; change = sorted[next]) {
      if (id !== undefined && !before(change.id, id)) return;
      next += 1;
      total += 1;
      // write() returns a promise only when its buffer is flushed: no await (and no tick) per item.
      const pending = writer.write(change);
      if (pending) await pending;
    }
  };
  for await (chunk of lineChunks(file)) {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, at);
      const lineEnd = newline === -1 ? chunk.length : newline;
      const start = at;
      at = lineEnd + 1;
      lineNumber += 1;
      const cr = lineEnd > start && chunk[lineEnd - 1] === CR;
      const end = cr ? lineEnd - 1 : lineEnd;
      if (state === 'closed') {
        if (chunk.toString('utf8', start, end).trim() === '') continue;
        throw dataFileDamaged(file, `text after the closing ] (line ${lineNumber})`);
      }
      if (state === 'open') {
        if (end - start !== 1 || chunk[start] !== OPEN)
          throw dataFileDamaged(file, `line ${lineNumber} is not the opening [`);
        state = 'items';
        continue;
      }
      if (end - start === 1 && chunk[start] === CLOSE) {
        state = 'closed';
        continue;
      }
      const comma = end > start && chunk[end - 1] === COMMA;
      const contentEnd = comma ? end - 1 : end;
      let id: ItemId | undefined = plainIntegerId(chunk, start, contentEnd);
      let item: Item | undefined;
      if (id === undefined) {
        item = parseItemLine(file, chunk.toString('utf8', start, contentEnd), lineNumber);
        id = item.id;
      }
      if (previous !== undefined && !before(previous, id))
        throw dataFileDamaged(file, `it is not sorted by id (id ${String(id)} after ${String(previous)})`);
      previous = id;
      let gone = deleted[nextDeleted];
      while (gone !== undefined && before(gone, id)) gone = deleted[++nextDeleted];
      const length = contentEnd - start;
      const change = sorted[next];
      const isDeleted = gone !== undefined && compareIds(gone, id) === 0;
      if (
        (change !== undefined && !before(id, change.id)) ||
        isDeleted ||
        cr ||
        gathered + length + 1 > scratch.length
      ) {
        const ended = endRun();
        if (ended) await ended;
        await putChangesBelow(id);
        const same = sorted[next];
        const kept = !isDeleted && !cr && (same === undefined || compareIds(same.id, id) !== 0);
        if (!kept) {
          digest.addLine(chunk.subarray(start, contentEnd));
          let pending: Promise<void> | undefined;
          if (same !== undefined && compareIds(same.id, id) === 0) {
            next += 1;
            total += 1;
            pending = writer.write(same);
          } else if (isDeleted) {
            removed += 1;
            onRemoved?.(item ?? parseItemLine(file, chunk.toString('utf8', start, contentEnd), lineNumber));
          } else {
            // An unchanged line kept apart (a '\r' ending): written as its text.
            total += 1;
            pending = writer.writeJson(chunk.toString('utf8', start, contentEnd));
          }
          if (pending) await pending;
          continue;
        }
      }
      if (length + 1 > scratch.length) scratch = Buffer.allocUnsafe(2 * (length + 1));
      if (runCount === 0) runStart = start;
      runEnd = contentEnd;
      chunk.copy(scratch, gathered, start, contentEnd);
      gathered += length;
      scratch[gathered++] = NEWLINE;
      runCount += 1;
      // The run's slice holds its lines with their ",\n" between them: a line without its comma ends it.
      if (!comma) {
        const pending = endRun();
        if (pending) await pending;
      }
    }
    const pending = endRun();
    if (pending) await pending;
  }
  if (state === 'open') throw dataFileDamaged(file, 'it is empty');
  if (state === 'items') throw dataFileDamaged(file, 'it ends before its closing ]');
  const found = digest.result();
  if (!expected.some((want) => sameDigest(want, found))) {
    const want = expected[0];
    throw dataFileDamaged(
      file,
      want && want.items !== found.items
        ? `it holds ${found.items} items where the last sync wrote ${want.items}`
        : 'its content differs from what the last sync wrote',
    );
  }
  await putChangesBelow(undefined);
  return { total, upserted: sorted.length, removed };
}
