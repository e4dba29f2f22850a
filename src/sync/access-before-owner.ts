import { HttpStatusError, LedgerhookError } from '../errors.js';
import { paginate, type PaginateOptions } from './paginate.js';

/**
 * A dataset whose data belongs to another owner is refused before anything is fetched. But when the
 * token is simply wrong, "another token's data" hides the real problem: so the service is asked
 * first (one page of one item), and a 401/403 is said with the ownership fact beside it. A token the
 * service accepts gets the ownership refusal alone.
 */
export async function accessBeforeOwner(mismatch: unknown, options: PaginateOptions): Promise<never> {
  if (!(mismatch instanceof LedgerhookError) || mismatch.details.reason !== 'owner_mismatch') throw mismatch;
  try {
    for await (const _first of paginate({ ...options, lastUpdatedDate: undefined, limit: 1, maxPages: 1 })) break;
  } catch (error) {
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403))
      throw new LedgerhookError(error.code, `${error.message}; besides, ${mismatch.message}`, {
        cause: error,
        details: {
          ...mismatch.details,
          ...error.details,
          reason: error.details.reason ?? 'token_rejected',
          status: error.status,
        },
      });
    // Any other failure of the probe says nothing about the token: the ownership refusal stands.
  }
  throw mismatch;
}
