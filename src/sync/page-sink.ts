import type {
  ChangeSet,
  CommitResult,
  DatasetRef,
  DatasetState,
  DatasetStore,
  FullLoad,
  StoredItem,
} from '../store/dataset-store.js';
import type { ListPage } from '../dataset/envelope.js';
import { idKey } from '../dataset/item-id.js';

/**
 * Where the pages of one run go until the store commits them: streamed into a full load, or
 * gathered as changes (upserts by id, deletedIds) for an incremental merge. With dryRun, only counted.
 */
export class PageSink {
  readonly #store: DatasetStore;
  readonly #ref: DatasetRef;
  readonly #mode: 'full' | 'incremental';
  readonly #dryRun: boolean;
  #load: FullLoad | undefined;
  #committed = false;
  readonly #changes = new Map<string, StoredItem>();
  readonly #deleted = new Map<string, number | string>();
  /** The lastUpdatedDate of the page each changed id came on (the history's provenance). */
  readonly pageOf = new Map<string, string>();
  received = 0;

  constructor(store: DatasetStore, ref: DatasetRef, mode: 'full' | 'incremental', dryRun: boolean) {
    this.#store = store;
    this.#ref = ref;
    this.#mode = mode;
    this.#dryRun = dryRun;
  }

  get deletedSoFar(): number {
    return this.#deleted.size;
  }

  async add(page: ListPage): Promise<void> {
    this.received += page.data.length;
    if (this.#mode === 'incremental') {
      for (const entry of page.data) {
        const key = idKey(entry.id);
        this.#changes.set(key, entry);
        this.pageOf.set(key, page.lastUpdatedDate);
      }
      for (const id of page.deletedIds ?? []) this.#deleted.set(idKey(id), id);
    } else if (!this.#dryRun) {
      this.#load ??= await this.#store.beginFull(this.#ref);
      await this.#load.add(page.data);
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
    extra: Pick<ChangeSet, 'origin' | 'keepDeleted' | 'reasons'> = {},
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
        ? await (this.#load ?? (await this.#store.beginFull(this.#ref))).commit(next)
        : await this.#store.applyChanges(
            this.#ref,
            { upserts: [...this.#changes.values()], deletedIds: [...this.#deleted.values()], ...extra },
            next,
          );
    this.#committed = true;
    return result;
  }

  /** Drops a full load that was not committed (a failure or Ctrl-C): the old data stays. */
  async abort(): Promise<void> {
    if (this.#load && !this.#committed) await this.#load.abort();
  }
}
