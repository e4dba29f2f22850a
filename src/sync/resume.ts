import type { DatasetRef, DatasetState, ReadCheckpoint, TakenCheckpoint } from '../store/dataset-store.js';
import { isSendableCursor } from './paginate.js';
import type { ResolvedSyncDatasetOptions, ResumeDiscardReason, SyncProgressEvent } from './sync-options.js';

export { cursorNoLongerAccepted, parseStatusList } from './expired-cursor.js';

/**
 * Whether a run continues an interrupted full read, and how a checkpoint is told apart
 * from one that must not be continued. The store keeps the pages; this decides, store-neutrally.
 */

export interface ResumePlan {
  /** The checkpoint to continue, taken for this run. */
  taken?: TakenCheckpoint | undefined;
  from?: ReadCheckpoint | undefined;
  discarded?: ResumeDiscardReason | undefined;
}

/** The committed state a read began over, as a checkpoint records it (null: none). */
export const stateStamp = (state: DatasetState | undefined): string | null =>
  state ? `${state.syncedAt} ${state.lastUpdatedDate}` : null;

/** Where the store keeps this run's data, as a checkpoint records it. */
export const storeLocation = (options: Pick<ResolvedSyncDatasetOptions, 'store'>): string =>
  options.store.location ?? options.store.stateLocation;

/** Whether this run keeps checkpoints as its full read goes. */
export const keepsCheckpoints = (options: ResolvedSyncDatasetOptions, isDocument: boolean): boolean =>
  !options.output.dryRun && options.read.resume && !isDocument && options.store.takeCheckpoint !== undefined;

const sameFilter = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Why this checkpoint is not this run's read to continue, or undefined when it is. */
function mismatch(
  checkpoint: ReadCheckpoint,
  options: ResolvedSyncDatasetOptions,
  ref: DatasetRef,
  stored: DatasetState | undefined,
): ResumeDiscardReason | undefined {
  if (checkpoint.tokenFingerprint !== ref.tokenFingerprint) return 'other-token';
  if (checkpoint.baseUrl !== ref.baseUrl) return 'other-base-url';
  if (
    checkpoint.userId !== ref.userId ||
    checkpoint.dataset !== ref.dataset ||
    !sameFilter(checkpoint.filter, ref.filter)
  )
    return 'other-dataset';
  if (checkpoint.limit !== options.read.limit) return 'other-limit';
  if (checkpoint.location !== storeLocation(options)) return 'other-location';
  if (checkpoint.basedOn !== stateStamp(stored)) return 'state-changed';
  if (!isSendableCursor(checkpoint.cursor)) return 'damaged';
  return undefined;
}

/**
 * Takes the dataset's checkpoint, if one was left, and either keeps it for this run (which then
 * continues that full read) or drops it, saying why. A dry run, a window (`since`) and a document
 * leave checkpoints alone.
 */
export async function planResume(
  options: ResolvedSyncDatasetOptions,
  ref: DatasetRef,
  stored: DatasetState | undefined,
  isDocument: boolean,
  emit: (event: SyncProgressEvent) => void,
): Promise<ResumePlan> {
  if (options.output.dryRun || options.read.since !== undefined || isDocument || !options.store.takeCheckpoint)
    return {};
  const taken = await options.store.takeCheckpoint(ref);
  if (!taken) return {};
  const checkpoint = taken.checkpoint;
  const reason: ResumeDiscardReason | undefined =
    options.read.full || !options.read.resume
      ? 'requested'
      : checkpoint === undefined
        ? 'damaged'
        : (mismatch(checkpoint, options, ref, stored) ?? (taken.damaged === undefined ? undefined : 'damaged'));
  if (reason !== undefined || checkpoint === undefined) {
    await taken.discard();
    const detail = reason === 'damaged' ? taken.damaged : undefined;
    emit({
      type: 'resume-discarded',
      dataset: ref.dataset,
      reason: reason ?? 'damaged',
      pages: checkpoint?.pages ?? 0,
      ...(detail ? { detail } : {}),
    });
    return { discarded: reason ?? 'damaged' };
  }
  emit({
    type: 'resume',
    dataset: ref.dataset,
    fromPage: checkpoint.pages + 1,
    itemsKept: checkpoint.items,
    savedAt: checkpoint.savedAt,
  });
  return { taken, from: checkpoint };
}
