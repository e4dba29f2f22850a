import type {
  ChangeSet,
  CommitResult,
  DatasetRef,
  DatasetState,
  DatasetStore,
  FullLoad,
  ReadCheckpoint,
  StoredItem,
  TakenCheckpoint,
} from '../store/dataset-store.js';
import type { ListPage } from '../dataset/envelope.js';
import { collisionError, idKey, sameSpelling } from '../dataset/item-id.js';

/** How a full read's pages are kept: with checkpoints (a later run can continue), and from which. */
export interface SinkResume {
  resumable: boolean;
  /** The checkpoint this run continues: its pages are the first ones of the load. */
  taken?: TakenCheckpoint | undefined;
  /** Items the continued pages held. */
  received?: number | undefined;
}

/**
 * Where the pages of one run go until the store commits them: streamed into a full load, or
 * gathered as changes (upserts by id, deletedIds) for an incremental merge. With dryRun, only counted.
 */
export class PageSink {
  readonly #store: DatasetStore;
  readonly #ref: DatasetRef;
  readonly #mode: 'full' | 'incremental';
  readonly #dryRun: boolean;
  readonly #resume: SinkResume;
  #load: FullLoad | undefined;
  #committed = false;
  #saving: Promise<void> | undefined;
  readonly #changes = new Map<string, StoredItem>();
  readonly #deleted = new Map<string, number | string>();
  /** The lastUpdatedDate of the page each changed id came on (the history's provenance). */
  readonly pageOf = new Map<string, string>();
  received = 0;

  constructor(
    store: DatasetStore,
    ref: DatasetRef,
    mode: 'full' | 'incremental',
    dryRun: boolean,
    resume: SinkResume = { resumable: false },
  ) {
    this.#store = store;
    this.#ref = ref;
    this.#mode = mode;
    this.#dryRun = dryRun;
    this.#resume = resume;
    this.received = resume.received ?? 0;
  }

  #begin(): Promise<FullLoad> {
    const { resumable, taken } = this.#resume;
    return this.#store.beginFull(this.#ref, resumable || taken ? { resumable: true, resume: taken } : undefined);
  }

  /** Whether `checkpoint` would keep one now: a resumable full read that has begun its load. */
  get keepsCheckpoints(): boolean {
    return this.#mode === 'full' && !this.#dryRun && this.#resume.resumable && this.#load?.checkpoint !== undefined;
  }

  /**
   * Makes the pages so far durable with where the read stands; false when this read keeps no
   * checkpoints. Nothing may be added, committed or aborted until it has settled.
   */
  async checkpoint(at: ReadCheckpoint): Promise<boolean> {
    if (!this.keepsCheckpoints || !this.#load?.checkpoint) return false;
    await this.#load.checkpoint(at);
    return true;
  }

  /**
   * Starts `checkpoint` without waiting for it; `kept` is told the outcome once the store has taken
   * it (a store that writes behind the read, Postgres, writes it with a later checkpoint or at the
   * stop: a crash can lose the pages since its last write). The caller awaits `settle` before it
   * adds, commits or goes past the next page; `abort` waits for it.
   */
  checkpointBehind(at: ReadCheckpoint, kept: (kept: boolean) => void): void {
    const saving = this.checkpoint(at).then(kept);
    saving.catch(() => {}); // surfaces at settle; a run stopped meanwhile must not leave it unhandled
    this.#saving = saving;
  }

  /** The checkpoint started by checkpointBehind, if one is in flight (its failure is thrown here). */
  settle(): Promise<void> | undefined {
    const saving = this.#saving;
    this.#saving = undefined;
    return saving;
  }

  get deletedSoFar(): number {
    return this.#deleted.size;
  }

  /** `bytes`: the response `page` was parsed from, a full load's to keep its items' as they stand. */
  async add(page: ListPage, bytes?: Buffer): Promise<void> {
    this.received += page.data.length;
    if (this.#mode === 'incremental') {
      for (const entry of page.data) {
        const key = idKey(entry.id);
        const earlier = this.#changes.get(key)?.id;
        // Within one read, two ids of one key spelt otherwise are two items (item-id.ts). A full read
        // holds no ids: its repeated ids meet in the store, which refuses them there.
        if (earlier !== undefined && !sameSpelling(earlier, entry.id))
          throw collisionError(earlier, entry.id, `the changes read for ${this.#ref.dataset}`);
        this.#changes.set(key, entry);
        this.pageOf.set(key, page.lastUpdatedDate);
      }
      for (const id of page.deletedIds ?? []) this.#deleted.set(idKey(id), id);
    } else if (!this.#dryRun) {
      this.#load ??= await this.#begin();
      await this.#load.add(page.data, bytes);
    }
  }

  /** The ids to remove: deletedIds less any id that data also brought (data is its current state). */
  removals(): Array<number | string> {
    for (const key of this.#changes.keys()) this.#deleted.delete(key);
    return [...this.#deleted.values()];
  }

  /**
   * Hands everything to the store with the next state (and where the changes came from, whether
   * removed items are kept as tombstones); with dryRun, only says what would change.
   */
  async commit(
    next: DatasetState,
    extra: Pick<ChangeSet, 'origin' | 'keepDeleted' | 'reasons' | 'verify'> = {},
  ): Promise<CommitResult> {
    // An id both upserted and deleted is kept: data is its current state.
    this.removals();
    if (this.#dryRun)
      return {
        upserted: this.received,
        removed: this.#deleted.size,
        total: this.#mode === 'full' ? this.received : 0,
      };
    const result =
      this.#mode === 'full'
        ? await (this.#load ?? (await this.#begin())).commit(next)
        : await this.#store.applyChanges(
            this.#ref,
            { upserts: [...this.#changes.values()], deletedIds: [...this.#deleted.values()], ...extra },
            next,
          );
    this.#committed = true;
    return result;
  }

  /**
   * Drops a full load that was not committed (a failure or Ctrl-C): the old data stays. With
   * `keepCheckpoint`, the pages up to the last checkpoint stay too, for the next run to continue.
   */
  async abort(keepCheckpoint = false): Promise<void> {
    // A checkpoint still being written ends first (kept or not) before the load is dropped or kept.
    await this.settle()?.catch(() => {});
    if (this.#committed) return;
    if (this.#load) await this.#load.abort({ keepCheckpoint });
    else if (keepCheckpoint) await this.#resume.taken?.release();
    else await this.#resume.taken?.discard();
  }
}
