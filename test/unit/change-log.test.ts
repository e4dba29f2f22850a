/**
 * The file store's change log (issue 21): only committed runs count, and pruning to the kept days
 * drops old versions but never a current tombstone.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { HistoryEntry } from '../../src/store/dataset-history.js';
import {
  appendChanges,
  foldTombstones,
  markRun,
  pruneChangeLog,
  readHistory,
} from '../../src/store/file/change-log.js';
import { tempDir } from '../helpers/cli.js';

const entry = (run: string, at: string, op: 'upsert' | 'delete', id: number, extra: Partial<HistoryEntry> = {}) =>
  ({ at, run, cause: 'sync', op, id, ...extra }) as HistoryEntry;

describe('change log', () => {
  it('shows only committed runs: marked, or the run the state committed', async () => {
    const path = join(tempDir(), 'x.changes.jsonl');
    await appendChanges(path, [entry('r1', '2026-01-01T00:00:00.000Z', 'upsert', 1)]);
    await markRun(path, 'r1', '2026-01-01T00:00:00.000Z', true);
    await appendChanges(path, [entry('r2', '2026-01-02T00:00:00.000Z', 'upsert', 1)]); // killed before its commit
    await appendChanges(path, [entry('r3', '2026-01-03T00:00:00.000Z', 'upsert', 1)]); // committed, marker lost
    assert.deepEqual(
      (await readHistory(path, ['r3'], 1)).map((e) => e.run),
      ['r1', 'r3'],
    );
    assert.deepEqual(await readHistory(join(tempDir(), 'none.jsonl'), []), []);
  });

  it('pruning drops what is older than the cutoff but keeps current tombstones', async () => {
    const path = join(tempDir(), 'x.changes.jsonl');
    await appendChanges(path, [
      entry('r1', '2026-01-01T00:00:00.000Z', 'upsert', 1),
      entry('r1', '2026-01-01T00:00:00.000Z', 'delete', 2, { reason: 'left_filter', item: { id: 2 } }),
      entry('r1', '2026-01-01T00:00:00.000Z', 'delete', 3, { reason: 'deleted', item: { id: 3 } }),
    ]);
    await markRun(path, 'r1', '2026-01-01T00:00:00.000Z', true);
    await appendChanges(path, [entry('r2', '2026-03-01T00:00:00.000Z', 'upsert', 3)]); // 3 came back
    await markRun(path, 'r2', '2026-03-01T00:00:00.000Z', true);
    await pruneChangeLog(path, '2026-02-01T00:00:00.000Z', []);
    const left = await readHistory(path, []);
    assert.deepEqual(
      left.map((e) => [e.run, e.op, e.id]),
      [
        ['r1', 'delete', 2],
        ['r2', 'upsert', 3],
      ],
    );
    assert.deepEqual(
      foldTombstones(left).map((e) => [e.id, e.reason]),
      [[2, 'left_filter']],
    );
    // The kept tombstone is older than the cutoff, yet the next commits do not rewrite the log again
    // until a day has passed since this prune.
    const before = readFileSync(path, 'utf8');
    await pruneChangeLog(path, '2026-02-01T12:00:00.000Z', []);
    assert.equal(readFileSync(path, 'utf8'), before);
    await pruneChangeLog(path, '2026-02-02T00:00:00.000Z', []);
    assert.deepEqual(
      (await readHistory(path, [])).map((e) => e.id),
      [2, 3],
    );
  });
});
