import type { AtomicItemWriter, FileDigest, Item } from './data-file.js';
import { ItemDigest } from './data-file.js';
import { dataFileDamaged, readItemLines } from './read-items.js';
import { compareIds, idKey, type ItemId } from '../../dataset/item-id.js';
import type { ChangeSet, CommitResult } from '../dataset-store.js';

function sameDigest(a: FileDigest, b: FileDigest): boolean {
  return a.items === b.items && a.checksum === b.checksum;
}

/**
 * One streaming pass over the old (sorted) file and the sorted changes: an id in `upserts` is
 * replaced or inserted (and stays even if deletedIds names it too, since data is its current
 * state); an id only in deletedIds is dropped. The old file is checked on the way against what
 * was written last (`expected`: the committed state, or a pending one): a damaged file fails the
 * merge before anything is put in place.
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
  const deleted = new Set(changes.deletedIds.map(idKey));
  const digest = new ItemDigest();
  let next = 0;
  let total = 0;
  let removed = 0;
  let previous: ItemId | undefined;
  const put = (item: Item) => {
    total += 1;
    return writer.write(item);
  };
  const putChangesBelow = async (id: ItemId | undefined) => {
    for (let change = sorted[next]; change !== undefined; change = sorted[next]) {
      if (id !== undefined && compareIds(change.id, id) >= 0) return;
      next += 1;
      // write() returns a promise only when its buffer is flushed: no await (and no tick) per item.
      const pending = put(change);
      if (pending) await pending;
    }
  };
  for await (const { line, item } of readItemLines(file)) {
    digest.add(line);
    if (previous !== undefined && compareIds(previous, item.id) >= 0)
      throw dataFileDamaged(file, `it is not sorted by id (id ${String(item.id)} after ${String(previous)})`);
    previous = item.id;
    await putChangesBelow(item.id);
    const change = sorted[next];
    let pending: Promise<void> | undefined;
    if (change !== undefined && compareIds(change.id, item.id) === 0) {
      next += 1;
      pending = put(change);
    } else if (deleted.has(idKey(item.id))) {
      removed += 1;
      onRemoved?.(item);
    } else {
      pending = writer.writeJson(line);
      total += 1;
    }
    if (pending) await pending;
  }
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
