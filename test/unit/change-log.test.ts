/**
 * The file store's change log: only committed runs count, and pruning to the kept days
 * drops old versions but never a current tombstone.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
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
      (await readHistory(path, ['r3'], { id: 1 })).entries.map((e) => e.run),
      ['r1', 'r3'],
    );
    assert.deepEqual(await readHistory(join(tempDir(), 'none.jsonl'), []), { entries: [], skipped: 0 });
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
    const left = (await readHistory(path, [])).entries;
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
      (await readHistory(path, [])).entries.map((e) => e.id),
      [2, 3],
    );
  });

  it('--last N reads from the end what a whole read would give, across windows, uncommitted runs left out', async () => {
    const path = join(tempDir(), 'x.changes.jsonl');
    // ~1 MB of runs: the first window from the end (256 KiB) holds only some of them.
    for (let run = 0; run < 40; run += 1) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, run)).toISOString();
      const entries = Array.from({ length: 100 }, (_, index) =>
        entry(`r${run}`, at, 'upsert', run * 100 + index, { item: { id: run * 100 + index, pad: 'p'.repeat(200) } }),
      );
      await appendChanges(path, entries);
      // Every fifth run is killed before its commit; run 39 is the one the state committed (no marker).
      if (run % 5 !== 4 && run !== 39) await markRun(path, `r${run}`, at, true);
    }
    const whole = (await readHistory(path, ['r39'])).entries;
    assert.equal(whole.length, 3300);
    for (const last of [1, 50, 150, 1000, 3300, 5000]) {
      const read = await readHistory(path, ['r39'], { last });
      assert.deepEqual(read.entries, whole.slice(-last), `--last ${last}`);
    }
  });

  it('a line cut short by a crash does not swallow the next line appended', async () => {
    const path = join(tempDir(), 'x.changes.jsonl');
    await appendChanges(path, [entry('r1', '2026-01-01T00:00:00.000Z', 'upsert', 1)]);
    await markRun(path, 'r1', '2026-01-01T00:00:00.000Z', true);
    appendFileSync(path, '{"at":"2026-01-02T00:00:00.000Z","run":"r2","cau');
    await appendChanges(path, [entry('r3', '2026-01-03T00:00:00.000Z', 'upsert', 1)]);
    await markRun(path, 'r3', '2026-01-03T00:00:00.000Z', true);
    const read = await readHistory(path, []);
    assert.deepEqual(
      read.entries.map((e) => e.run),
      ['r1', 'r3'],
    );
    assert.equal(read.skipped, 1, 'the cut line is counted');
  });

  it("a pipe or a symlink under the log's name is refused at once, for reading and appending", async () => {
    const dir = tempDir();
    const pipe = join(dir, 'pipe.changes.jsonl');
    execFileSync('mkfifo', [pipe]);
    const link = join(dir, 'link.changes.jsonl');
    symlinkSync(join(dir, 'elsewhere'), link);
    for (const path of [pipe, link]) {
      await assert.rejects(readHistory(path, []), { details: { reason: 'not_a_regular_file', path } } as never);
      await assert.rejects(markRun(path, 'r1', '2026-01-01T00:00:00.000Z', true), {
        details: { reason: 'not_a_regular_file', path },
      } as never);
    }
    assert.equal(existsSync(join(dir, 'elsewhere')), false, 'nothing created through the link');
  });
});
