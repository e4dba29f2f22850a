import { firstIndex } from '../util/first-index.js';
import type { ChangesBetween } from './dataset.js';
import type { MockItem } from './entity-generators.js';
import type { PagedDataset } from './paging.js';

interface Version {
  at: number;
  /** null: deleted. */
  item: MockItem | null;
}

/**
 * One recorded dataset (a path and its filter) as the mock pages it: every item the recording
 * showed, each version at the time it changed. An item that a recorded deletedIds named but no read
 * ever showed is kept as unseen: it is reported as deleted, never served.
 */
export class RecordedDataset implements PagedDataset {
  /**
   * Nothing is known of when the items of the first read changed: they stand from the beginning, and
   * any lastUpdatedDate is answered with the changes recorded after it (never a full read).
   */
  readonly baseTime = Number.NEGATIVE_INFINITY;
  #ids: number[] = [];
  #sorted = true;
  readonly #versions = new Map<number, Version[]>();
  /** Every change in time order (versions are added in time order). */
  readonly #log: Array<{ at: number; id: number }> = [];
  readonly #unseen = new WeakSet<MockItem>();

  #add(id: number, version: Version): void {
    let versions = this.#versions.get(id);
    if (!versions) {
      versions = [];
      this.#versions.set(id, versions);
      if (this.#ids.length > 0 && id < (this.#ids.at(-1) as number)) this.#sorted = false;
      this.#ids.push(id);
    }
    versions.push(version);
    if (version.at > this.baseTime) this.#log.push({ at: version.at, id });
  }

  /** The item as it stands from `at` (the first read's items from the base time). */
  put(at: number, item: MockItem): void {
    this.#add(item.id, { at, item });
  }

  /** The item left the dataset at `at`; one never seen is first recorded as unseen, so that it is reported. */
  remove(at: number, id: number): void {
    if (!this.#versions.has(id)) {
      const unseen = { id };
      this.#unseen.add(unseen);
      this.#add(id, { at: this.baseTime, item: unseen });
    }
    this.#add(id, { at, item: null });
  }

  /** The version of `id` at time `at`: undefined when it did not exist yet. */
  #at(id: number, at: number): MockItem | null | undefined {
    const versions = this.#versions.get(id) ?? [];
    for (let index = versions.length - 1; index >= 0; index -= 1) {
      const version = versions[index] as Version;
      if (version.at <= at) return version.item;
    }
    return undefined;
  }

  /** Whether the item stands now (the last version) and was seen: a full read after this time would list it. */
  current(id: number): MockItem | undefined {
    const item = this.#versions.get(id)?.at(-1)?.item;
    return item && !this.#unseen.has(item) ? item : undefined;
  }

  /** Every id that stands after the last version (for a recorded full read's comparison). */
  *currentIds(): Generator<number> {
    for (const id of this.#ids) if (this.current(id)) yield id;
  }

  #ordered(): number[] {
    if (!this.#sorted) {
      this.#ids.sort((a, b) => a - b);
      this.#sorted = true;
    }
    return this.#ids;
  }

  *itemsAsOf(asOf: number, afterId = Number.NEGATIVE_INFINITY): Generator<MockItem> {
    const ids = this.#ordered();
    const start = firstIndex(ids.length, (index) => (ids[index] as number) > afterId);
    for (let index = start; index < ids.length; index += 1) {
      const item = this.#at(ids[index] as number, asOf);
      if (item && !this.#unseen.has(item)) yield item;
    }
  }

  changesBetween(since: number, asOf: number): ChangesBetween {
    const log = this.#log;
    const start = firstIndex(log.length, (index) => (log[index] as { at: number }).at > since);
    const changed = new Set<number>();
    for (let index = start; index < this.#log.length; index += 1) {
      const change = this.#log[index] as { at: number; id: number };
      if (change.at > asOf) break;
      changed.add(change.id);
    }
    const before = new Map<number, MockItem | null>();
    const after = new Map<number, MockItem | null>();
    for (const id of changed) {
      before.set(id, this.#at(id, since) ?? null);
      after.set(id, this.#at(id, asOf) ?? null);
    }
    return { ids: [...changed].sort((a, b) => a - b), before, after };
  }
}
