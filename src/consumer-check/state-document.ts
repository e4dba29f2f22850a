import { isItemId, type ItemId } from '../dataset/item-id.js';
import { LedgerhookError } from '../errors.js';
import { isObject } from '../util/is-object.js';

/**
 * What a consumer says its store holds, as `check-consumer --state` reads it:
 *
 *   { "users": { "<userId>": { "<dataset key>": [ { "id": 7, ...fields }, ... ] } } }
 *
 * A dataset key is the path plus the sorted filter as a query string, as ledgerhook names datasets
 * (`/expenses`, `/expenses?type=PENDING`). Only the checked user is read; other users are ignored.
 * The document comes from the user's own program and is untrusted: its size is bounded by the
 * reader, its shape checked here, and nothing in it is ever evaluated or becomes a path.
 */
export type StateItem = Record<string, unknown> & { id: ItemId };
export type ConsumerDatasets = ReadonlyMap<string, readonly StateItem[]>;

/** A dataset key: a path, optionally a query; long enough for any real filter, short enough for a report. */
const MAX_KEY_LENGTH = 1024;
const MAX_DATASETS = 10_000;

/**
 * A piece of untrusted text as it may appear in one line of a message: JSON-quoted (no newline, no
 * C0 control) with DEL and the C1 controls escaped too, so that it can never drive a terminal.
 */
export function quoted(text: string, max = 80): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function invalid(source: string, what: string): LedgerhookError {
  return new LedgerhookError(
    'ERR_USAGE',
    `the state from ${source} is not of the documented shape: ${what}; expected { "users": { "<userId>": { "<dataset>": [ { "id": ... }, ... ] } } }`,
    { details: { reason: 'consumer_state_invalid' } },
  );
}

/** Checks one user's datasets of a state document (already parsed JSON) and returns them by key. */
export function readConsumerState(document: unknown, userId: string, source: string): ConsumerDatasets {
  if (!isObject(document)) throw invalid(source, 'the document is not a JSON object');
  const users = document.users;
  if (!isObject(users)) throw invalid(source, '"users" is missing or not an object');
  // Own keys only: a user named "__proto__" or "constructor" is data, never a lookup on Object.prototype.
  if (!Object.hasOwn(users, userId)) return new Map();
  const datasets = users[userId];
  if (!isObject(datasets)) throw invalid(source, `users[${quoted(userId)}] is not an object of datasets`);
  const entries = Object.entries(datasets);
  if (entries.length > MAX_DATASETS) throw invalid(source, `more than ${MAX_DATASETS} datasets for one user`);
  const result = new Map<string, StateItem[]>();
  for (const [key, items] of entries) {
    const where = `users[${quoted(userId)}][${quoted(key)}]`;
    if (!key.startsWith('/') || key.length > MAX_KEY_LENGTH)
      throw invalid(source, `${where}: a dataset key is a path such as /expenses or /expenses?type=PENDING`);
    if (!Array.isArray(items)) throw invalid(source, `${where} is not an array of items`);
    items.forEach((item: unknown, index) => {
      if (!isObject(item)) throw invalid(source, `${where}[${index}] is not an object`);
      if (!isItemId(item.id)) throw invalid(source, `${where}[${index}] has no id (a number or a string)`);
    });
    result.set(key, items as StateItem[]);
  }
  return result;
}

/** A dataset key split into the path and the filter the service is asked with. */
export function datasetParts(key: string): { path: string; filter: Record<string, string> } {
  // Split by hand: a URL parser would read `//host/expenses` as another host's /expenses.
  const at = key.indexOf('?');
  const path = at < 0 ? key : key.slice(0, at);
  return { path, filter: at < 0 ? {} : Object.fromEntries(new URLSearchParams(key.slice(at + 1))) };
}
