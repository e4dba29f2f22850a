import { createHash } from 'node:crypto';
import { type DatasetSchema, JSON_TYPES, MAX_SCHEMA_FIELDS } from '../store/dataset-schema.js';

/**
 * Schema drift: what a run saw of its items' top-level fields, against what the state
 * remembers. Pure: the run feeds pages in, and gets the drift and the schema to commit back.
 */
export interface SchemaDrift {
  /** Fields never seen before, sorted; their types in `addedTypes`. */
  added: string[];
  addedTypes: Record<string, string[]>;
  /** Fields in no item of a full read (an incremental run sees too few items to tell). */
  missing: string[];
  /** Fields seen with a JSON type they never had (null too): the types recorded, and the union now. */
  changed: Array<{ field: string; was: string[]; now: string[] }>;
  /** This run brought the fields remembered to MAX_SCHEMA_FIELDS: new ones past it go unnoticed. */
  tooManyFields?: true | undefined;
}

/** One bit per JSON type, in JSON_TYPES order, so that a mask lists its types sorted. */
function typeBit(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 32;
    case 'number':
      return 8;
    case 'boolean':
      return 2;
    case 'object':
      return value === null ? 4 : Array.isArray(value) ? 1 : 16;
    default:
      return 0;
  }
}

const typesOf = (mask: number) => JSON_TYPES.filter((_, index) => (mask & (1 << index)) !== 0);
const maskOf = (types: readonly string[]) =>
  JSON_TYPES.reduce((mask, type, index) => (types.includes(type) ? mask | (1 << index) : mask), 0);

/** Longer names are remembered by a stand-in: the state stays small whatever the server sends. */
const MAX_NAME = 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what jsonb refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The name a field is remembered by: itself, or for a very long name or one Postgres's jsonb cannot
 * hold (NUL, a lone surrogate) a readable head plus a hash, the same for the same name every time.
 */
export function storableName(key: string): string {
  if (key.length <= MAX_NAME && !UNSTORABLE.test(key)) return key;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what jsonb refuses
  const head = key.slice(0, 60).replace(/[\u0000\ud800-\udfff]/g, '\ufffd');
  return `${head}…#${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/**
 * Collects the fields and types of every item of a run. Items of one dataset mostly list the same
 * fields in the same order, and JSON.parse gives equal keys as one string: a field at the place and
 * of a type the item before had there is told by comparing two strings, without a map lookup.
 */
export class SchemaObserver {
  readonly #types = new Map<string, number>();
  /** The keys of the last item, by place, and the types recorded for each when it was looked up. */
  readonly #lastKeys: string[] = [];
  readonly #lastTypes: number[] = [];
  items = 0;
  /** Some field was not tracked: more distinct fields than MAX_SCHEMA_FIELDS (missing cannot be told). */
  overflow = false;

  observe(items: ReadonlyArray<Record<string, unknown>>): void {
    this.items += items.length;
    const types = this.#types;
    const lastKeys = this.#lastKeys;
    const lastTypes = this.#lastTypes;
    for (const item of items) {
      let place = 0;
      for (const key in item) {
        const bit = typeBit(item[key]);
        if (lastKeys[place] !== key || ((lastTypes[place] ?? 0) & bit) === 0) {
          const seen = types.get(key);
          if (seen === undefined) this.#add(key, bit);
          else if ((seen & bit) === 0) types.set(key, seen | bit);
          lastKeys[place] = key;
          // What the map holds for it now (0 for a field not tracked: looked up each time).
          lastTypes[place] = types.get(key) ?? 0;
        }
        place += 1;
      }
    }
  }

  /** The slow path, once per new field (and each time for a name kept by its stand-in). */
  #add(key: string, bit: number): void {
    const name = storableName(key);
    const seen = this.#types.get(name);
    if (seen !== undefined) this.#types.set(name, seen | bit);
    else if (this.#types.size < MAX_SCHEMA_FIELDS) this.#types.set(name, bit);
    else this.overflow = true;
  }

  get fields(): ReadonlyMap<string, number> {
    return this.#types;
  }
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// fromEntries defines own properties: a field named "__proto__" stays a field.
const schemaOf = (masks: ReadonlyMap<string, number>): DatasetSchema =>
  Object.fromEntries([...masks.keys()].sort(byName).map((name) => [name, typesOf(masks.get(name) ?? 0)]));

/**
 * The drift of a run and the schema to commit. `complete`: every item was read (a full read), so a
 * field in none of them is missing. The schema is a union over time: a new type is added once
 * reported, so it is reported once; a type no longer seen stays; a missing field is dropped (and, if
 * it comes back, reported as new). The first run that sees an item records without reporting.
 */
export function settleSchema(
  stored: DatasetSchema | undefined,
  observed: SchemaObserver,
  complete: boolean,
): { schema: DatasetSchema | undefined; drift: SchemaDrift | undefined } {
  // Nothing seen (no item, or only deletions): nothing learnt, and no field can be called missing.
  if (observed.items === 0) return { schema: stored, drift: undefined };
  const seen = observed.fields;
  if (!stored) {
    const full = observed.overflow || seen.size >= MAX_SCHEMA_FIELDS;
    const drift = full
      ? { added: [], addedTypes: {}, missing: [], changed: [], tooManyFields: true as const }
      : undefined;
    return { schema: schemaOf(seen), drift };
  }
  const next = new Map(Object.entries(stored).map(([name, types]) => [name, maskOf(types)]));
  const before = next.size;
  const missing = complete && !observed.overflow ? Object.keys(stored).filter((name) => !seen.has(name)) : [];
  for (const name of missing) next.delete(name);
  const added: string[] = [];
  const changed: SchemaDrift['changed'] = [];
  for (const [name, mask] of seen) {
    const was = next.get(name);
    if (was === undefined) {
      if (next.size >= MAX_SCHEMA_FIELDS) continue;
      added.push(name);
      next.set(name, mask);
    } else if ((mask & ~was) !== 0) {
      changed.push({ field: name, was: typesOf(was), now: typesOf(was | mask) });
      next.set(name, was | mask);
    }
  }
  const tooManyFields = before < MAX_SCHEMA_FIELDS && (next.size >= MAX_SCHEMA_FIELDS || observed.overflow);
  const drifted = added.length + missing.length + changed.length > 0;
  if (!drifted && !tooManyFields) return { schema: schemaOf(next), drift: undefined };
  added.sort(byName);
  const drift: SchemaDrift = {
    added,
    addedTypes: Object.fromEntries(added.map((name) => [name, typesOf(next.get(name) ?? 0)])),
    missing: missing.sort(byName),
    changed: changed.sort((a, b) => byName(a.field, b.field)),
    ...(tooManyFields ? { tooManyFields: true as const } : {}),
  };
  return { schema: schemaOf(next), drift };
}

/** Whether a drift is one (`tooManyFields` alone is a notice about tracking, not a change). */
export const isDrift = (drift: SchemaDrift | undefined): drift is SchemaDrift =>
  drift !== undefined && drift.added.length + drift.missing.length + drift.changed.length > 0;

// Field names are network text: quoted, with every control, C1 and bidi character escaped.
const HIDDEN = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const quote = (name: string) =>
  JSON.stringify(name).replace(HIDDEN, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** One line for people: `new field "approvedBy" (string); "amount" was number, now number|string`. */
export function describeDrift(drift: SchemaDrift, most = 10): string {
  const parts = [
    ...drift.added.map((name) => `new field ${quote(name)} (${(drift.addedTypes[name] ?? []).join('|')})`),
    ...drift.changed.map((c) => `${quote(c.field)} was ${c.was.join('|')}, now ${c.now.join('|')}`),
    ...drift.missing.map((name) => `field ${quote(name)} in no item`),
  ];
  const shown = parts.slice(0, most);
  if (parts.length > most) shown.push(`and ${parts.length - most} more`);
  if (drift.tooManyFields)
    shown.push(`${MAX_SCHEMA_FIELDS} fields remembered, the most kept: new fields past them are not reported`);
  return shown.join('; ');
}
