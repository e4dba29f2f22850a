import type { AtomicItemWriter } from './atomic-item-writer.js';
import type { FileDigest, Item } from './data-file.js';
import { ItemDigest } from './item-digest.js';
import { dataFileDamaged, parseItemLine } from './read-items.js';
import { lineChunks, plainIntegerId } from './item-line-chunks.js';
import { canonical, compareIds, type ItemId } from '../../dataset/item-id.js';
import type { ChangeSet, CommitResult } from '../dataset-store.js';
import { FileChecksum, isFileChecksum } from './file-checksum.js';

/**
 * The old file's content as the two kinds of stored checksum see it: SHA-256 over its item lines
 * (states written before issue 23; taken only when one is expected) and the checksum of its bytes
 * as ledgerhook lays them out (file-checksum.ts: a file whose lines end in "\r\n" is taken as the
 * same content with "\n").
 */
class OldContent {
  readonly lines: ItemDigest | undefined;
  readonly #laidOut = new FileChecksum();
  #started = false;
  #closed: string | undefined;
  #legacy: string | undefined;
  items = 0;

  constructor(legacy: boolean) {
    this.lines = legacy ? new ItemDigest() : undefined;
    this.#laidOut.add(OPENING);
  }

  /** Item lines as laid out in a file: joined by ",\n". */
  add(lines: Buffer, count: number): void {
    if (this.#started) this.#laidOut.add(SEPARATOR);
    this.#started = true;
    this.#laidOut.add(lines);
    this.items += count;
  }

  /** Whether the content is what `want` describes; call once all lines are in. */
  matches(want: FileDigest): boolean {
    if (want.items !== this.items) return false;
    // An earlier state's SHA-256 of the lines, finished once: it is compared with the state and with
    // its pending entry (a second digest() of the same hash throws).
    if (!isFileChecksum(want.checksum)) {
      this.#legacy ??= this.lines?.result().checksum;
      return want.checksum === this.#legacy;
    }
    if (this.#closed === undefined) {
      this.#laidOut.add(this.#started ? CLOSING_AFTER_ITEMS : CLOSING_EMPTY);
      this.#closed = this.#laidOut.toString();
    }
    return want.checksum === this.#closed;
  }
}

const OPENING = Buffer.from('[\n');
const SEPARATOR = Buffer.from(',\n');
const CLOSING_AFTER_ITEMS = Buffer.from('\n]\n');
const CLOSING_EMPTY = Buffer.from(']\n');

const NEWLINE = 10;
const CR = 13;
const COMMA = 44;
const CLOSE = 93;
const OPEN = 91;

/** Ids compared fast when both are numbers (the usual case), by the shared order otherwise. */
const before = (a: ItemId, b: ItemId) =>
  typeof a === 'number' && typeof b === 'number' ? a < b : compareIds(a, b) < 0;

/**
 * The merge as it was before issue 23's fast one (file-store-merge.ts), line by line: one
 * streaming pass over the old (sorted) file and the sorted changes, checking the old file's layout,
 * order and content on the way. Taken when the state's checksum is the earlier kind (SHA-256 over
 * the lines, gathered here, so a state written by an earlier version still verifies), and when the
 * fast merge finds the file not as its checksum says: this pass then says what is wrong, or merges a
 * file whose only difference is "\r\n" line ends (edited by hand), writing it back with "\n".
 *
 * Unchanged lines are copied to the new file as slices; only a line's id is read, from its bytes
 * when it is a plain integer. A line is parsed whole only when it is dropped (its last content goes
 * to the history) or its id is not plain.
 */
export async function mergeLineByLine(
  file: string,
  changes: ChangeSet,
  expected: readonly FileDigest[],
  writer: AtomicItemWriter,
  /** Told of each item dropped, with its last content (for the history and tombstones). */
  onRemoved?: (item: Item) => void,
): Promise<CommitResult> {
  const sorted = [...changes.upserts].sort((a, b) => compareIds(a.id, b.id));
  const deleted = changes.deletedIds.map(canonical).sort(compareIds);
  const content = new OldContent(expected.some((want) => !isFileChecksum(want.checksum)));
  const legacy = content.lines;
  let next = 0;
  let nextDeleted = 0;
  let total = 0;
  let removed = 0;
  let previous: ItemId | undefined;
  let state: 'open' | 'items' | 'closed' = 'open';
  let lineNumber = 0;
  // The run of unchanged lines being copied: where it starts in the chunk, and its checksum bytes.
  let scratch = Buffer.allocUnsafe(legacy ? 1024 * 1024 : 0);
  let gathered = 0;
  let runStart = -1;
  let runEnd = 0;
  let runCount = 0;
  let chunk: Buffer = Buffer.alloc(0);
  const endRun = () => {
    if (runCount === 0) return undefined;
    const lines = chunk.subarray(runStart, runEnd);
    legacy?.addLines(scratch.subarray(0, gathered), runCount);
    content.add(lines, runCount);
    total += runCount;
    writer.countCopied(runCount);
    const pending = writer.copyRaw(lines);
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
        (legacy !== undefined && gathered + length + 1 > scratch.length)
      ) {
        const ended = endRun();
        if (ended) await ended;
        await putChangesBelow(id);
        const same = sorted[next];
        const kept = !isDeleted && !cr && (same === undefined || compareIds(same.id, id) !== 0);
        if (!kept) {
          const line = chunk.subarray(start, contentEnd);
          legacy?.addLine(line);
          content.add(line, 1);
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
      if (runCount === 0) runStart = start;
      runEnd = contentEnd;
      runCount += 1;
      if (legacy) {
        // SHA-256 of the lines is taken over "line\n" each: gathered, and hashed in one call per run.
        if (length + 1 > scratch.length) scratch = Buffer.allocUnsafe(2 * (length + 1));
        chunk.copy(scratch, gathered, start, contentEnd);
        gathered += length;
        scratch[gathered++] = NEWLINE;
      }
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
  if (!expected.some((want) => content.matches(want))) {
    const want = expected[0];
    throw dataFileDamaged(
      file,
      want && want.items !== content.items
        ? `it holds ${content.items} items where the last sync wrote ${want.items}`
        : 'its content differs from what the last sync wrote',
    );
  }
  await putChangesBelow(undefined);
  return { total, upserted: sorted.length, removed };
}
