import { LedgerhookError, usageError } from '../errors.js';
import type { DatasetRef, DatasetState, FullReadReason } from '../store/dataset-store.js';
import { type SettledStamp, stampToCommit } from './server-stamp.js';

/**
 * `since`: re-reading the changes of a window for a repair, without a full read. The date
 * is sent as the lastUpdatedDate header instead of the stored one and the answer is merged like an
 * incremental run; the stored lastUpdatedDate only ever moves forward.
 */

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * An ISO 8601 date (`2026-01-31`, midnight UTC) or date-time with its zone (`2026-01-31T12:00:00Z`,
 * `…+02:00`), as the UTC timestamp the spec's header carries; undefined for anything else,
 * impossible dates (February 30th) and a time without a zone (which zone would be a guess) included.
 */
export function parseSinceDate(text: string): string | undefined {
  const match = ISO_8601.exec(text.trim());
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00'] = match;
  const numbers = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = numbers;
  const calendar = new Date(Date.UTC(y, mo - 1, d));
  if (calendar.getUTCFullYear() !== y || calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d)
    return undefined;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const at = Date.parse(match[4] === undefined ? `${text.trim()}T00:00:00Z` : text.trim());
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

/** The window's start, checked: a date, and a dataset with a state to merge into. */
export function windowStart(
  since: string,
  ref: DatasetRef,
  state: DatasetState | undefined,
  why: FullReadReason,
  location: string,
): string {
  const start = parseSinceDate(since);
  if (start === undefined)
    throw usageError(
      `"${since}" is not an ISO 8601 date: give a date (2026-01-31) or a date-time with its zone (2026-01-31T12:00:00Z)`,
      'invalid_since',
    );
  if (state === undefined)
    throw new LedgerhookError(
      'ERR_USAGE',
      `${ref.dataset} has nothing in ${location} to re-read a window into (${why === 'first-sync' ? 'never synced there' : why}); a full read comes first`,
      { details: { reason: 'since_without_state', dataset: ref.dataset } },
    );
  return start;
}

/**
 * The lastUpdatedDate a window's run commits: as any incremental run's (stampToCommit, the window's
 * start being what was sent), except that a window that began after the stored date did not read
 * the changes in between, so then the stored one stays; so it does when either cannot be compared.
 */
export function afterWindow(stored: string, windowStartedAt: string, firstPage: string): SettledStamp {
  const [s, w, f] = [Date.parse(stored), Date.parse(windowStartedAt), Date.parse(firstPage)];
  if (Number.isNaN(s) || Number.isNaN(w) || Number.isNaN(f) || w > s) return { lastUpdatedDate: stored };
  return stampToCommit(stored, windowStartedAt, firstPage);
}
