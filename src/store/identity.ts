/**
 * The ONE identity encoding. A user's directory, a dataset's file name, a dataset's state key and a
 * queue's job id are all derived from here, so two different users (or datasets) can never share
 * one, and one user can never end up with two. Everything here is pure and collision-free:
 * percent-encoding is reversible, so distinct inputs give distinct outputs; names on disk are also
 * apart on case-insensitive file systems (portableName). Keys and job ids are exact strings and
 * keep the plain encoding.
 */
import { createHash } from 'node:crypto';
import { LedgerhookError } from '../errors.js';

/** A directory name stays well under the 255-byte limit of common file systems. */
export const MAX_ENCODED_ID_LENGTH = 200;

const SAFE_BYTE = /^[A-Za-z0-9_-]$/;

/**
 * Percent-encodes every UTF-8 byte outside [A-Za-z0-9_-] (and outside `extra`), uppercase hex:
 * `a/b` → `a%2Fb`, `a_b` stays, `..` → `%2E%2E`. Reversible with decodeURIComponent. `all`: every
 * byte, safe ones too.
 */
export function percentEncode(text: string, extra = '', all = false): string {
  let out = '';
  for (const char of text) {
    if (!all && (SAFE_BYTE.test(char) || (extra !== '' && extra.includes(char)))) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * A webhook's userId as a key part: its percent-encoding. Refuses what cannot be a user of its own
 * ('' , '.', '..') and ids too long for a name; everything else (including `/`, NUL, any script) is
 * encoded, never replaced.
 */
function encodedUserId(userId: string): string {
  if (userId === '' || userId === '.' || userId === '..')
    throw new LedgerhookError('ERR_USAGE', `userId ${JSON.stringify(userId)} cannot name a user`, {
      details: { reason: 'bad_user_id', userId },
    });
  // UTF-8 cannot carry a lone surrogate: encoded, "\ud800" and "\udc00" would both be U+FFFD (one
  // directory, one state key, one job for three users). Ill-formed ids are refused, never replaced.
  if (/[\uD800-\uDFFF]/u.test(userId))
    throw new LedgerhookError('ERR_USAGE', `userId ${JSON.stringify(userId)} is not well-formed Unicode`, {
      details: { reason: 'bad_user_id', userId },
    });
  const encoded = percentEncode(userId);
  if (encoded.length > MAX_ENCODED_ID_LENGTH)
    throw new LedgerhookError(
      'ERR_USAGE',
      `userId of ${userId.length} characters is too long to keep apart (at most ${MAX_ENCODED_ID_LENGTH} once encoded)`,
      { details: { reason: 'bad_user_id', length: userId.length } },
    );
  return encoded;
}

/** A user's directory under the output directory: the encoded userId as a portable name (`Alice` → `Alice@0`). */
export function userDirName(userId: string): string {
  return portableName(encodedUserId(userId), MAX_DIR_NAME, userId);
}

/** Spec 4.3 rule 6, one dataset = path + filter: `/expenses?type=PENDING` (filter sorted by key). */
export function datasetKey(path: string, filter: Readonly<Record<string, string>> = {}): string {
  const normalised = `/${path.replace(/^\/+/, '')}`;
  const query = new URLSearchParams(Object.entries(filter).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = query.toString();
  return text === '' ? normalised : `${normalised}?${text}`;
}

/** The path and filter a dataset key was made of (the inverse of datasetKey). */
export function parseDatasetKey(key: string): { path: string; filter: Record<string, string> } {
  const at = key.indexOf('?');
  if (at < 0) return { path: key, filter: {} };
  return { path: key.slice(0, at), filter: Object.fromEntries(new URLSearchParams(key.slice(at + 1))) };
}

/** A short SHA-256 fingerprint of an access token: tells tokens apart, never reveals one. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 16);
}

/** The API root without trailing slashes: one server, one spelling. */
export function normaliseBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * Whose data this is: the user when there is one (listen --sync), else the token that fetched it
 * (a plain CLI sync). Only [A-Za-z0-9_%=-]: safe as a key part, a job id or a path segment.
 */
export function ownerKey(ref: { userId: string; tokenFingerprint: string }): string {
  return ref.userId === '' ? `token=${ref.tokenFingerprint}` : `user=${encodedUserId(ref.userId)}`;
}

/** The state key of a dataset: `<owner>@<baseUrl><dataset>`; the owner part never holds an `@`. */
export function stateKey(ref: { userId: string; tokenFingerprint: string; baseUrl: string; dataset: string }): string {
  return `${ownerKey(ref)}@${normaliseBaseUrl(ref.baseUrl)}${ref.dataset}`;
}

/** A queue job id for one dataset of one owner (BullMQ ids must not contain `:`). */
export function jobId(ref: { userId: string; tokenFingerprint: string; baseUrl: string; dataset: string }): string {
  return percentEncode(stateKey(ref), '=');
}

/** A directory name stays well under the 255-byte limit of common file systems. */
const MAX_DIR_NAME = 240;
/** A data file's name before `.json`: room for the names made beside it (`.<name>.json.<pid>.<nonce>.staging`). */
const MAX_FILE_STEM = 150;
/** Windows' device names: no file or directory may be called so, whatever follows a dot. */
const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;
const CAPITAL = /[A-Z]/;

/**
 * The positions of the capital letters in `stem` outside its %XX escapes, as runs: `0`, `14-20`,
 * `0,5`; '' when there is none.
 */
function capitals(stem: string): string {
  const runs: string[] = [];
  let start = -1;
  for (let at = 0; at <= stem.length; at += 1) {
    if (stem[at] === '%') {
      if (start >= 0) runs.push(start === at - 1 ? `${start}` : `${start}-${at - 1}`);
      start = -1;
      at += 2;
      continue;
    }
    const capital = at < stem.length && CAPITAL.test(stem[at] ?? '');
    if (capital && start < 0) start = at;
    if (!capital && start >= 0) {
      runs.push(start === at - 1 ? `${start}` : `${start}-${at - 1}`);
      start = -1;
    }
  }
  return runs.join(',');
}

/**
 * An encoded name (only [A-Za-z0-9_-], %XX escapes with capital hex, and the separators `.`, `=`
 * and `+` of datasetFileName) made safe as a file or directory name on every system:
 * - case-insensitive file systems (macOS, Windows) fold `Alice` and `alice` into one name: a name
 *   with capital letters ends in `@` and their positions (`Alice@0`, `expenses.type=PENDING@14-20`),
 *   so two names differing only in case differ in that suffix too, and a name without capitals has
 *   no suffix (an encoding never holds `@`: it is %40);
 * - a Windows device name (`con`, `nul.x`) gets its first letter escaped (`%63on`), which no
 *   encoding produces either;
 * - a name longer than `limit` keeps a readable prefix and `@h` with 16 hex of SHA-256 of `exact`
 *   (`@` then a letter: no list of positions starts so).
 * Never empty, never `.` or `..`, no `/`, `\` or NUL: every such character is escaped before.
 */
function portableName(encoded: string, limit: number, exact: string): string {
  const first = encoded.split('.')[0] ?? '';
  const stem = RESERVED.test(first) ? `${percentEncode(encoded.slice(0, 1), '', true)}${encoded.slice(1)}` : encoded;
  const cases = capitals(stem);
  const name = cases === '' ? stem : `${stem}@${cases}`;
  if (name.length <= limit) return name;
  const hash = createHash('sha256').update(exact, 'utf8').digest('hex').slice(0, 16);
  return `${stem.slice(0, limit - 18)}@h${hash}`;
}

/** A path segment or filter part of a dataset's file name: '' is `+` (no encoding makes a lone `+`). */
const part = (text: string) => (text === '' ? '+' : percentEncode(text));

/**
 * The file name of a dataset, unique per dataset key and readable: the path's segments and the
 * filter's `key=value` pairs joined by `.` (`/expenses` → `expenses.json`, `/expenses?type=PENDING`
 * → `expenses.type=PENDING@14-20.json`, `/expenses/categories` → `expenses.categories.json`, `/` →
 * `+.json`), every other character percent-encoded (a `.`, `=`, `+` or `@` in a segment, key or
 * value is %2E, %3D, %2B, %40), made portable by portableName. Only a key datasetKey makes is
 * taken: then path and filter are one-to-one with the key, and the name with both (a segment never
 * holds a bare `=`, a filter pair always does).
 */
export function datasetFileName(dataset: string): string {
  const { path, filter } = parseDatasetKey(dataset);
  if (!dataset.startsWith('/') || datasetKey(path, filter) !== dataset)
    throw new LedgerhookError(
      'ERR_USAGE',
      `${JSON.stringify(dataset)} is not a dataset key (a path and a sorted filter)`,
      {
        details: { reason: 'invalid_dataset_path', dataset },
      },
    );
  const segments = path.slice(1).split('/').map(part);
  const pairs = Object.entries(filter).map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`);
  return `${portableName([...segments, ...pairs].join('.'), MAX_FILE_STEM, dataset)}.json`;
}
