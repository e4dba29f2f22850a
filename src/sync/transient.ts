import { HttpStatusError, LedgerhookError } from '../errors.js';

/**
 * Whether a failed sync may succeed later by itself: the store or the service unreachable, 5xx, 429,
 * timeouts. Permanent: 401/403/404, refused data (another owner's dataset, an answer that is not a
 * list), usage errors, and a stop that was asked for. One rule for the worker and listen --sync.
 */
export function isTransientFailure(error: unknown): boolean {
  if (!(error instanceof LedgerhookError)) return true;
  const status = error instanceof HttpStatusError ? error.status : undefined;
  if (status === 401 || status === 403 || status === 404) return false;
  if (error.details.reason === 'data_file_damaged') return false;
  return !['ERR_USAGE', 'ERR_BAD_RESPONSE', 'ERR_ABORTED', 'ERR_CHECK_FAILED'].includes(error.code);
}
