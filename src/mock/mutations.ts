import { isObject } from '../util/is-object.js';
import type { MockDataset } from './dataset.js';
import { EXPENSE_TYPES, type MockItem } from './entity-generators.js';
import { mockError } from './mock-error.js';
import type { MutationResult, MutationSpec } from './mock-types.js';

export interface MutationCounts {
  creates: number;
  updates: number;
  deletes: number;
  retypes: number;
  /** The items to update besides the `updates` chosen at random. */
  updateIds: readonly number[];
}

const MAX_COUNT = 100_000;

function count(spec: MutationSpec, name: 'create' | 'update' | 'delete' | 'retype'): number {
  const value: unknown = spec[name] ?? 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_COUNT)
    throw mockError(400, 'invalid_body', `${name} must be a whole number from 0 to ${MAX_COUNT}`);
  return value;
}

/** A mutation request as sent to POST /__mock/mutate: anything, checked here. */
export function checkMutationSpec(spec: unknown): MutationSpec {
  if (!isObject(spec) || typeof spec.path !== 'string')
    throw mockError(400, 'invalid_body', 'path is required, e.g. { "path": "/expenses", "create": 2 }');
  return spec as unknown as MutationSpec;
}

function chosenIds(spec: MutationSpec): readonly number[] {
  const ids: unknown = spec.updateIds ?? [];
  if (!Array.isArray(ids) || ids.length > MAX_COUNT || !ids.every((id) => Number.isSafeInteger(id)))
    throw mockError(400, 'invalid_body', `updateIds must be a list of at most ${MAX_COUNT} item ids`);
  return ids;
}

export function mutationCounts(spec: MutationSpec): MutationCounts {
  return {
    creates: count(spec, 'create'),
    updates: count(spec, 'update'),
    deletes: count(spec, 'delete'),
    retypes: count(spec, 'retype'),
    updateIds: chosenIds(spec),
  };
}

export interface MutationContext {
  /** The one instant every change of this mutation carries. */
  at: number;
  random: () => number;
  userId: string;
}

/** Moves PENDING items to another type: they leave a type=PENDING dataset (spec 3). */
function retype(dataset: MockDataset, spec: MutationSpec, n: number, ctx: MutationContext, result: MutationResult) {
  const first = dataset.existingIdsFrom(() => 0).next();
  const sample = first.done ? undefined : dataset.get(first.value);
  if (!sample || !('type' in sample))
    throw mockError(400, 'invalid_body', `${dataset.entity} items have no type to change`);
  const to = spec.retypeTo ?? 'BUSINESS';
  if (to === 'PENDING')
    throw mockError(400, 'invalid_body', 'retype moves PENDING items to another type; retypeTo must not be PENDING');
  for (const id of dataset.existingIdsFrom(ctx.random)) {
    if (result.retyped.length === n) break;
    if (dataset.get(id)?.type !== 'PENDING') continue;
    const item = dataset.update(ctx.at, id, { type: to });
    if (item) {
      result.items.push(item);
      result.retyped.push(id);
    }
  }
}

/** A changed amount, or fresh fields for entities without one; sometimes a settled expense changes type. */
function patchFor(dataset: MockDataset, current: MockItem, random: () => number): Partial<MockItem> {
  const patch: Partial<MockItem> =
    typeof current.amount === 'number'
      ? { amount: Math.round(current.amount * (0.5 + random()) * 100) / 100 }
      : { ...dataset.freshFields(Math.floor(random() * 1e9)) };
  if ('type' in current && dataset.entity === 'expense' && current.type !== 'PENDING' && random() < 0.2) {
    const type = EXPENSE_TYPES[1 + Math.floor(random() * 3)];
    if (type) patch.type = type;
  }
  return patch;
}

/** Applies creates, updates, deletes and retypes to one dataset, all at `ctx.at`. */
export function applyMutation(
  dataset: MockDataset,
  spec: MutationSpec,
  counts: MutationCounts,
  ctx: MutationContext,
): MutationResult {
  const result: MutationResult = {
    path: spec.path,
    entity: dataset.entity,
    userId: ctx.userId,
    at: new Date(ctx.at).toISOString(),
    created: [],
    updated: [],
    deleted: [],
    retyped: [],
    items: [],
  };
  if (counts.retypes > 0) retype(dataset, spec, counts.retypes, ctx, result);
  // An item changes at most once per mutation: one instant cannot hold two versions of it.
  const touched = new Set(result.retyped);
  const pickIds = (n: number) => {
    const ids: number[] = [];
    for (const id of dataset.existingIdsFrom(ctx.random)) {
      if (ids.length === n) break;
      if (!touched.has(id)) {
        ids.push(id);
        touched.add(id);
      }
    }
    return ids;
  };
  const update = (id: number) => {
    const current = dataset.get(id);
    const item = current ? dataset.update(ctx.at, id, patchFor(dataset, current, ctx.random)) : undefined;
    if (item) {
      result.items.push(item);
      result.updated.push(id);
    }
  };
  for (const id of counts.updateIds) {
    if (touched.has(id)) continue;
    touched.add(id);
    update(id);
  }
  for (const id of pickIds(counts.updates)) update(id);
  for (const id of pickIds(counts.deletes)) {
    dataset.delete(ctx.at, id);
    result.deleted.push(id);
  }
  for (let index = 0; index < counts.creates; index += 1) {
    const item = dataset.create(ctx.at, dataset.freshFields(dataset.changeCount * 7 + index));
    result.items.push(item);
    result.created.push(item.id);
  }
  return result;
}
