import { DEFAULT_EXPIRED_CURSOR_STATUSES } from '../defaults.js';
import { HttpStatusError } from '../errors.js';

/**
 * When the server no longer accepts the cursor of an interrupted read. Spec 7 shows no
 * error statuses, so which answers count is a setting (`expiredCursorStatuses`); this module is
 * dependency-light so that the settings command can check a value without loading the sync.
 */

const SAYS_CURSOR_INVALID =
  /(invalid|expired|unknown|stale|bad)[\s_-]*cursor|cursor[^.]{0,40}\b(invalid|expired|unknown|not found|no longer|rejected)/i;

/**
 * Whether an answer to a resumed read's cursor says the server no longer accepts it: a status of
 * `statuses`, or any 4xx (but 401 and 429, which mean a token and a rate limit) whose body says so.
 */
export function cursorNoLongerAccepted(
  error: unknown,
  statuses: readonly number[] = DEFAULT_EXPIRED_CURSOR_STATUSES,
): error is HttpStatusError {
  if (!(error instanceof HttpStatusError)) return false;
  if (statuses.includes(error.status)) return true;
  const otherClientError = error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
  return otherClientError && SAYS_CURSOR_INVALID.test(error.body);
}

/**
 * A list of HTTP statuses as a setting holds it ("400,404,410"): the statuses, or what is wrong.
 * Only 4xx: 401 (the token) and 429 (the rate limit) already mean something else.
 */
export function parseStatusList(text: string): number[] | string {
  const parts = text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) return 'no status given';
  const statuses: number[] = [];
  for (const part of parts) {
    const status = Number(part);
    if (!/^\d{3}$/.test(part) || status < 400 || status > 499) return `"${part}" is not a 4xx HTTP status`;
    if (status === 401 || status === 429)
      return `${status} means ${status === 401 ? 'a rejected token' : 'a rate limit'}, not an expired cursor`;
    if (!statuses.includes(status)) statuses.push(status);
  }
  return statuses;
}
