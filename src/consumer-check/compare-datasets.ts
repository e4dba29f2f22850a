import { compareIds, idKey, type ItemId } from '../dataset/item-id.js';
import { quoted, type StateItem } from './state-document.js';

/** At most this many ids of each kind are listed; the counts are always exact. */
export const LISTED_IDS = 20;

/**
 * How one dataset of the consumer differs from the service's. `absent`: the consumer's state has no
 * such dataset (any more). Ids are compared as ledgerhook stores them: 7 and "7" are one id.
 */
export interface DatasetDifference {
  dataset: string;
  absent: boolean;
  /** On the service, not in the consumer's store. */
  missing: ItemId[];
  /** In the consumer's store, not on the service (deleted, or gone from the filter). */
  extra: ItemId[];
  /** In both, with a field the consumer keeps holding another value than the service's. */
  different: Array<{ id: ItemId; fields: string[] }>;
  /** More than once in the consumer's store (an append where an upsert was due). */
  duplicated: ItemId[];
  counts: { missing: number; extra: number; different: number; duplicated: number };
}

/** JSON values equal as JSON: same types, same members (in any order), same numbers and strings. */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 64 || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((value, index) => sameJson(value, b[index], depth + 1));
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return (
    keys.length === Object.keys(y).length &&
    keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key], depth + 1))
  );
}

/**
 * The fields in which a consumer's item differs from the service's. A consumer may keep a subset of
 * the fields and add its own (a synced-at column): the fields compared are the service's fields that
 * the consumer's item has. `id` is the key and was matched already.
 */
function differingFields(service: Record<string, unknown>, consumer: StateItem): string[] {
  return Object.keys(service).filter(
    (field) => field !== 'id' && Object.hasOwn(consumer, field) && !sameJson(service[field], consumer[field]),
  );
}

const byId = (a: ItemId, b: ItemId) => compareIds(a, b);

/**
 * Compares the service's items of one dataset with what the consumer holds for it (undefined: the
 * consumer has no such dataset), listing at most `listed` ids of each kind. Pure: both sides are plain data.
 */
export function compareDataset(
  dataset: string,
  service: ReadonlyArray<Record<string, unknown> & { id: ItemId }>,
  consumer: readonly StateItem[] | undefined,
  listed = LISTED_IDS,
): DatasetDifference {
  const held = new Map<string, StateItem>();
  const duplicated: ItemId[] = [];
  for (const item of consumer ?? []) {
    const key = idKey(item.id);
    if (held.has(key)) {
      if (!duplicated.some((id) => idKey(id) === key)) duplicated.push(item.id);
    } else held.set(key, item);
  }
  const missing: ItemId[] = [];
  const different: DatasetDifference['different'] = [];
  const seen = new Set<string>();
  for (const item of service) {
    const key = idKey(item.id);
    seen.add(key);
    const mine = held.get(key);
    if (!mine) missing.push(item.id);
    else {
      const fields = differingFields(item, mine);
      if (fields.length > 0) different.push({ id: item.id, fields });
    }
  }
  const extra = [...held.entries()].filter(([key]) => !seen.has(key)).map(([, item]) => item.id);
  missing.sort(byId);
  extra.sort(byId);
  duplicated.sort(byId);
  different.sort((a, b) => byId(a.id, b.id));
  return {
    dataset,
    absent: consumer === undefined,
    missing: missing.slice(0, listed),
    extra: extra.slice(0, listed),
    different: different.slice(0, listed),
    duplicated: duplicated.slice(0, listed),
    counts: {
      missing: missing.length,
      extra: extra.length,
      different: different.length,
      duplicated: duplicated.length,
    },
  };
}

export function isEqual(difference: DatasetDifference): boolean {
  const { counts } = difference;
  return !difference.absent && counts.missing + counts.extra + counts.different + counts.duplicated === 0;
}

/** An id as it reads in a report line: a number bare, a string quoted (it came from the consumer). */
const shownId = (id: ItemId) => (typeof id === 'number' ? String(id) : quoted(id, 40));
/** A dataset key from the consumer's state, bare when it is plain. */
export const shownDataset = (key: string) => (/^[\w/?=&%.,:+-]{1,200}$/.test(key) ? key : quoted(key));

/** "/expenses: 2 missing (100203, 100204), 1 different (100042: amount)", for one line of a report. */
export function describeDifference(difference: DatasetDifference, listed = 3): string {
  const name = shownDataset(difference.dataset);
  if (difference.absent) return `${name}: not in the state`;
  const list = (ids: readonly string[], count: number) =>
    ` (${ids.slice(0, listed).join(', ')}${count > listed ? ', …' : ''})`;
  const { counts } = difference;
  // Field names are the service's (the mock's), never the consumer's: printed as they are.
  const different = difference.different.map((d) => `${shownId(d.id)}: ${d.fields.join(' ')}`);
  const parts = [
    counts.missing ? `${counts.missing} missing${list(difference.missing.map(shownId), counts.missing)}` : '',
    counts.extra ? `${counts.extra} extra${list(difference.extra.map(shownId), counts.extra)}` : '',
    counts.different ? `${counts.different} different${list(different, counts.different)}` : '',
    counts.duplicated
      ? `${counts.duplicated} duplicated${list(difference.duplicated.map(shownId), counts.duplicated)}`
      : '',
  ].filter(Boolean);
  return `${name}: ${parts.join(', ')}`;
}
