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
