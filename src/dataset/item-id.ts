/**
 * dataset/: the vocabulary of a dataset that every layer shares.
 *   item-id.ts   item ids and their order, and the one rule that keeps ids as the server wrote them:
 *                a number JSON.parse cannot keep, or two ids of one read that a store would keep
 *                as one item, is refused with the ids named
 *   envelope.ts  the list page envelope (spec 2.4) and its quirks
 */
import { LedgerhookError } from '../errors.js';

export type ItemId = number | string;

/** "7" and 7 are the same id (deletedIds may carry either); other strings stay strings. */
export function canonical(id: ItemId): ItemId {
  if (typeof id === 'number') return id;
  if (/^-?(0|[1-9]\d{0,15})$/.test(id)) {
    const value = Number(id);
    if (Number.isSafeInteger(value)) return value;
  }
  return id;
}

/** Items are kept sorted by id: numbers (and numeric strings) numerically, then other strings. */
export function compareIds(a: ItemId, b: ItemId): number {
  const x = canonical(a);
  const y = canonical(b);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'number') return -1;
  if (typeof y === 'number') return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One key per id whether it came as a number or a numeric string. */
export function idKey(id: unknown): string {
  if (typeof id === 'number' || typeof id === 'string') {
    const value = canonical(id);
    return typeof value === 'number' ? `n${value}` : `s${value}`;
  }
  return `x${JSON.stringify(id)}`;
}

export function isItemId(value: unknown): value is ItemId {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';
}

/*
 * Ids as the server wrote them. A stored item is found by its key (idKey: 7 and "7" are one item, so
 * that deletedIds may name it either way and a later read may spell it otherwise). Within one read,
 * though, two ids of one key are two items the server told apart: merged, one would be lost without a
 * word. So a read whose ids meet under one key spelt differently is refused with both named, and a
 * number that cannot be kept as written (neighbours beyond 2^53 parse to the same double; -0 is
 * written back as 0) is refused on its own, wherever it stands: one rule for every store.
 */

/** How an id reads in a message, as the server wrote it as far as a parsed value can say (-0 kept). */
export const showId = (id: ItemId): string => (Object.is(id, -0) ? '-0' : JSON.stringify(id));

/** Whether two ids are written alike: same type, same string, same number. */
export const sameSpelling = (a: ItemId, b: ItemId): boolean => Object.is(a, b);

/** Two ids of one read that a store would keep as one item although the server wrote them apart. */
export const idsCollide = (a: ItemId, b: ItemId): boolean => !sameSpelling(a, b) && idKey(a) === idKey(b);

/** Why a parsed id cannot be kept as the server wrote it, or undefined when it can. */
export function inexactId(id: ItemId): string | undefined {
  if (typeof id === 'string' || (Number.isSafeInteger(id) && !Object.is(id, -0))) return undefined;
  return `${showId(id)}, a number ledgerhook cannot keep as written (a numeric id must be a whole number from -9007199254740991 to 9007199254740991, not -0: beyond, neighbours parse to one value)`;
}

/**
 * The first two ids of a page that collide, or undefined. A page of numbers (the usual case) costs one
 * pass and no key: exact numbers collide with nothing but a string.
 */
export function collisionIn(ids: readonly ItemId[]): [ItemId, ItemId] | undefined {
  if (!ids.some((id) => typeof id === 'string')) return undefined;
  const byKey = new Map<string, ItemId>();
  for (const id of ids) {
    const key = idKey(id);
    const first = byKey.get(key);
    if (first !== undefined && !sameSpelling(first, id)) return [first, id];
    byKey.set(key, id);
  }
  return undefined;
}

/** The refusal of a read whose ids `first` and `second` collide; `where` says where they met. */
export function collisionError(first: ItemId, second: ItemId, where: string): LedgerhookError {
  return new LedgerhookError(
    'ERR_BAD_RESPONSE',
    `${where}: the ids ${showId(first)} and ${showId(second)} are two items as the server wrote them but one item once read (ids are compared as numbers where they spell one); refused rather than merged, nothing was changed`,
    { details: { reason: 'id_collision', ids: [showId(first), showId(second)] } },
  );
}
