import { isObject } from '../util/is-object.js';

/**
 * The shape of a dataset's items as sync has seen them: each top-level field and the
 * JSON types it has had, sorted. Kept with the state (the file store's record, Postgres's `schema`
 * column) and committed with it, so data and the schema it was compared with never disagree.
 */
export type DatasetSchema = Record<string, string[]>;

/** The JSON types, in the order a field's types are listed (alphabetical). */
export const JSON_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'] as const;

/**
 * Fields remembered per dataset at most: field names come from the network, and a server that
 * invents a new one in every item must not grow the state (and every later comparison) without bound.
 */
export const MAX_SCHEMA_FIELDS = 500;

const isJsonType = (value: unknown): value is string =>
  typeof value === 'string' && (JSON_TYPES as readonly string[]).includes(value);

/**
 * A schema as read back from a state file or a column. Anything malformed counts as none recorded
 * (the next run records it afresh, reporting nothing): a damaged schema must never refuse the
 * state that carries it, nor report every field as new.
 */
export function schemaFrom(value: unknown): DatasetSchema | undefined {
  if (!isObject(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length > MAX_SCHEMA_FIELDS) return undefined;
  const fields: Array<[string, string[]]> = [];
  for (const [field, types] of entries) {
    if (!Array.isArray(types) || types.length === 0 || !types.every(isJsonType)) return undefined;
    fields.push([field, JSON_TYPES.filter((type) => types.includes(type))]);
  }
  // fromEntries defines own properties: a field named "__proto__" stays a field.
  return Object.fromEntries(fields);
}
