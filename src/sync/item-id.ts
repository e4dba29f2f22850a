export type ItemId = number | string;

/** Items are kept sorted by id: numbers numerically, then strings (ids are numbers in the spec). */
export function compareIds(a: ItemId, b: ItemId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** deletedIds may carry an id as a number or a string; both name the same item. */
export function idKey(id: unknown): string {
  return typeof id === 'number' ? `n${id}` : `s${String(id)}`;
}
