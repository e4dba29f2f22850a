import { firstIndex } from '../util/first-index.js';
import { generateItem, type GeneratorContext, type MockItem } from './entity-generators.js';

/** One change of one item: what it was just before (null: it did not exist yet). */
interface Change {
  at: number;
  id: number;
  before: MockItem | null;
}

interface Version {
  /** null: deleted. */
  item: MockItem | null;
  updatedAt: number;
}

/** What an incremental request sees between two times (spec 4.3 rule 5). */
export interface ChangesBetween {
  /** Ids changed in the interval, ascending. */
  ids: number[];
  /** Each changed id's item at the start of the interval (null: it did not exist then). */
  before: Map<number, MockItem | null>;
  /** Each changed id's item at the end of the interval (null: it no longer exists). */
  after: Map<number, MockItem | null>;
}

/**
 * The data of one entity. The seeded base items are never stored: each is generated from
 * (seed, id) when read, so a million expenses cost no memory. Only mutations are kept: the
 * current version of every touched item, and a log of changes for incremental reads.
 */
export class MockDataset {
  readonly entity: string;
  readonly baseTime: number;
  readonly #firstId: number;
  readonly #baseCount: number;
  readonly #entityIndex: number;
  readonly #ctx: GeneratorContext;
  readonly #versions = new Map<number, Version>();
  readonly #createdIds: number[] = [];
  readonly #changes: Change[] = [];
  #nextId: number;

  constructor(options: {
    entity: string;
    entityIndex: number;
    count: number;
    firstId: number;
    ctx: GeneratorContext;
    baseTime: number;
  }) {
    this.entity = options.entity;
    this.#entityIndex = options.entityIndex;
    this.#baseCount = options.count;
    this.#firstId = options.firstId;
    this.#ctx = options.ctx;
    this.baseTime = options.baseTime;
    this.#nextId = options.firstId + options.count;
  }

  #base(id: number): MockItem {
    return generateItem(this.entity, id, this.#ctx, this.#entityIndex);
  }

  #isBaseId(id: number): boolean {
    return Number.isInteger(id) && id >= this.#firstId && id < this.#firstId + this.#baseCount;
  }

  /** The current item, or undefined when it does not exist (never created, or deleted). */
  get(id: number): MockItem | undefined {
    const version = this.#versions.get(id);
    if (version) return version.item ?? undefined;
    return this.#isBaseId(id) ? this.#base(id) : undefined;
  }

  #record(at: number, id: number, item: MockItem | null): void {
    this.#changes.push({ at, id, before: this.get(id) ?? null });
    this.#versions.set(id, { item, updatedAt: at });
  }

  create(at: number, fields: Omit<MockItem, 'id'>): MockItem {
    const id = this.#nextId++;
    const item = { id, ...fields };
    this.#record(at, id, item);
    this.#createdIds.push(id);
    return item;
  }

  update(at: number, id: number, patch: Partial<MockItem>): MockItem | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    const item = { ...current, ...patch, id };
    this.#record(at, id, item);
    return item;
  }

  delete(at: number, id: number): boolean {
    if (!this.get(id)) return false;
    this.#record(at, id, null);
    return true;
  }

  /** A fresh item of this entity (fields only), deterministic for the given key. */
  freshFields(key: number): Omit<MockItem, 'id'> {
    const { id: _ignored, ...fields } = generateItem(
      this.entity,
      key,
      { ...this.#ctx, seed: this.#ctx.seed + 104_729 },
      this.#entityIndex,
    );
    return fields;
  }

  /** Existing ids starting at a random place, for choosing what to update or delete. */
  *existingIdsFrom(random: () => number): Generator<number> {
    const total = this.#nextId - this.#firstId;
    if (total <= 0) return;
    const start = Math.floor(random() * total);
    for (let step = 0; step < total; step += 1) {
      const id = this.#firstId + ((start + step) % total);
      if (this.get(id)) yield id;
    }
  }

  /**
   * Every item as it stands at time `asOf`, ascending by id, after `afterId`. An item changed
   * after `asOf` is left out: the next incremental read (since `asOf`) reports it.
   */
  *itemsAsOf(asOf: number, afterId = -Infinity): Generator<MockItem> {
    const lastBase = this.#firstId + this.#baseCount;
    for (let id = Math.max(this.#firstId, Math.floor(afterId) + 1); id < lastBase; id += 1) {
      const version = this.#versions.get(id);
      if (!version) yield this.#base(id);
      else if (version.item && version.updatedAt <= asOf) yield version.item;
    }
    for (const id of this.#createdIds) {
      if (id <= afterId) continue;
      const version = this.#versions.get(id);
      if (version?.item && version.updatedAt <= asOf) yield version.item;
    }
  }

  /** What changed in (since, asOf]: each changed item's state at both ends. */
  changesBetween(since: number, asOf: number): ChangesBetween {
    const before = new Map<number, MockItem | null>();
    const afterAsOf = new Map<number, MockItem | null>();
    // The log is in time order: find the first change after `since`.
    const changes = this.#changes;
    const low = firstIndex(changes.length, (index) => (changes[index] as Change).at > since);
    for (const change of changes.slice(low)) {
      if (change.at <= asOf) {
        if (!before.has(change.id)) before.set(change.id, change.before);
      } else if (!afterAsOf.has(change.id)) {
        afterAsOf.set(change.id, change.before);
      }
    }
    const after = new Map<number, MockItem | null>();
    for (const id of before.keys()) {
      const later = afterAsOf.get(id);
      after.set(id, later !== undefined ? later : (this.get(id) ?? null));
    }
    return { ids: [...before.keys()].sort((a, b) => a - b), before, after };
  }

  get changeCount(): number {
    return this.#changes.length;
  }
}
