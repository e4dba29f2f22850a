import type { CommitResult, DatasetState, FullLoad, TakenCheckpoint } from '../dataset-store.js';
import type { FileDigest } from './data-file.js';
import { CheckpointSlot, FileTakenCheckpoint } from './full-read-checkpoint.js';
import { FullReadWriter } from './full-read-writer.js';

/** Puts a written file in place with its state (FileStore's install: pending state, rename, state). */
export type Install = (
  state: DatasetState,
  write: (before: (digest: FileDigest) => Promise<void>) => Promise<FileDigest>,
) => Promise<FileDigest>;

/**
 * A full read into `file` whose pages a later run can continue: written into a staging
 * file named by its checkpoint slot, and renamed into place only at commit, exactly like the
 * all-or-nothing load. `taken` continues a checkpoint a previous run left.
 */
export async function resumableFullLoad(
  file: string,
  taken: TakenCheckpoint | undefined,
  install: Install,
): Promise<FullLoad> {
  let slot: CheckpointSlot;
  let writer: FullReadWriter;
  if (taken instanceof FileTakenCheckpoint && taken.staged && taken.kept && taken.damaged === undefined) {
    slot = taken.slot;
    writer = await FullReadWriter.continue(file, slot.stagingPath, taken.kept, taken.staged);
  } else {
    // A checkpoint that cannot be continued (another store's, or damaged) is dropped: a fresh read.
    await taken?.discard();
    slot = CheckpointSlot.fresh(file);
    writer = await FullReadWriter.create(file, slot.stagingPath);
  }
  let saved = taken !== undefined && slot === (taken as FileTakenCheckpoint).slot;
  // The caller awaits a checkpoint before going on (dataset-store.ts); should one still be in flight,
  // whatever comes next waits for it, so that a record never describes bytes written after its mark.
  let saving: Promise<void> | undefined;
  const settled = () => saving?.catch(() => {});
  return {
    add: async (items, bytes) => {
      await settled();
      await writer.add(items, bytes);
    },
    checkpoint: (at) => {
      saving = (async () => {
        await settled();
        if (await slot.save(at, await writer.mark())) saved = true;
      })();
      return saving;
    },
    commit: async (state): Promise<CommitResult> => {
      await settled();
      const digest = await install(state, (before) => writer.commit(before));
      // After the rename: a crash in between leaves a record whose read the new state has overtaken.
      await slot.remove();
      return { total: digest.items, upserted: digest.items, removed: 0 };
    },
    abort: async (options) => {
      await settled();
      if (options?.keepCheckpoint && saved) {
        await writer.close();
        await slot.release();
      } else {
        await writer.discard();
        await slot.remove();
      }
    },
  };
}
