/**
 * The ONE identity encoding (issue #10). A user's directory, a dataset's state key and a queue's
 * job id are all derived from here, so two different users (or datasets) can never share one,
 * and one user can never end up with two. Everything here is pure and collision-free:
 * percent-encoding is reversible, so distinct inputs give distinct outputs.
 */
import { createHash } from 'node:crypto';
import { LedgerhookError } from '../errors.js';

/** A directory name stays well under the 255-byte limit of common file systems. */
export const MAX_ENCODED_ID_LENGTH = 200;

const SAFE_BYTE = /^[A-Za-z0-9_-]$/;

/**
 * Percent-encodes every UTF-8 byte outside [A-Za-z0-9_-] (and outside `extra`), uppercase hex:
 * `a/b` → `a%2Fb`, `a_b` stays, `..` → `%2E%2E`. Reversible with decodeURIComponent.
 */
export function percentEncode(text: string, extra = ''): string {
  let out = '';
  for (const char of text) {
    if (SAFE_BYTE.test(char) || (extra !== '' && extra.includes(char))) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * A webhook's userId as one directory name under the output directory. Refuses what cannot be a
 * user of its own ('' , '.', '..') and ids too long for a file name; everything else (including
 * `/`, NUL, any script) is encoded, never replaced.
 */
export function userDirName(userId: string): string {
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
  return ref.userId === '' ? `token=${ref.tokenFingerprint}` : `user=${userDirName(ref.userId)}`;
}

/** The state key of a dataset: `<owner>@<baseUrl><dataset>`; the owner part never holds an `@`. */
export function stateKey(ref: { userId: string; tokenFingerprint: string; baseUrl: string; dataset: string }): string {
  return `${ownerKey(ref)}@${normaliseBaseUrl(ref.baseUrl)}${ref.dataset}`;
}

/** A queue job id for one dataset of one owner (BullMQ ids must not contain `:`). */
export function jobId(ref: { userId: string; tokenFingerprint: string; baseUrl: string; dataset: string }): string {
  return percentEncode(stateKey(ref), '=');
}

const MAX_FILE_STEM = 150;

/**
 * The file name of a dataset, unique per dataset key: its percent-encoding (`/expenses` →
 * `expenses.json`, `/expenses?type=PENDING` → `expenses%3Ftype=PENDING.json`, `/` → `+root.json`). A very long key
 * keeps a readable prefix plus a hash; an encoded name never contains a dot, so the two forms
 * cannot collide.
 */
export function datasetFileName(dataset: string): string {
  // Exactly one leading slash is dropped, so `/root`, `//root` and `/root/` stay three names; the
  // root `/` gets a name with `+`, which no encoding ever produces (`root` is `/root`'s).
  const encoded = percentEncode(dataset.startsWith('/') ? dataset.slice(1) : dataset, '=') || '+root';
  if (encoded.length <= MAX_FILE_STEM) return `${encoded}.json`;
  const hash = createHash('sha256').update(dataset, 'utf8').digest('hex').slice(0, 16);
  return `${encoded.slice(0, MAX_FILE_STEM - 20)}.${hash}.json`;
}
