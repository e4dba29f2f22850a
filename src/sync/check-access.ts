import { entityPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { findEntity } from '@ledgerhook/webhooks';
import { type ErrorReason, LedgerhookError } from '../errors.js';
import { type FetchJsonOptions, fetchJson } from '../http/fetch-json.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { explainEntityNotFound } from './entity-not-found.js';
import { listUrl } from './paginate.js';
import { reasonOf } from '../error-reasons.js';

/** What one request says of a base URL and a token: usable for a sync, or why not. */
export type AccessCheck =
  | { ok: true; path: string }
  | { ok: false; path: string; error: LedgerhookError; code: LedgerhookError['code']; reason: ErrorReason };

export interface CheckAccessOptions extends Pick<FetchJsonOptions, 'dispatcher' | 'signal' | 'timeoutMs'> {
  baseUrl: string;
  token: string;
  /** Per-entity path overrides of the environment (`paths.expense`). */
  paths?: EntityPaths | undefined;
}

/** Exactly one request: a status check must not ride out a rate limit or retry a refused connection. */
const ONE_ATTEMPT: RetryPolicy = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, maxWaitMs: 0 };

/**
 * Whether a sync with this base URL and token would get past its first request: one GET of the first
 * page of the expense list (one item), as a sync asks for it. Any 2xx means yes; a failure is the
 * error a sync would meet (a 401 `token_rejected`, a base URL without /rest/v5, a refused connection).
 */
export async function checkAccess(options: CheckAccessOptions): Promise<AccessCheck> {
  const expense = findEntity('expense');
  const path = expense ? entityPath(expense, options.paths) : '/expenses';
  try {
    await fetchJson({
      url: listUrl(options.baseUrl, path),
      headers: {
        authorization: `Bearer ${options.token}`,
        'content-type': 'application/json',
        limit: '1',
      },
      retry: ONE_ATTEMPT,
      timeoutMs: options.timeoutMs,
      dispatcher: options.dispatcher,
      signal: options.signal,
    });
    return { ok: true, path };
  } catch (thrown) {
    const error = explainEntityNotFound(thrown, path, options.paths, options.baseUrl);
    if (!(error instanceof LedgerhookError) || error.code === 'ERR_ABORTED') throw error;
    return { ok: false, path, error, code: error.code, reason: reasonOf(error) ?? 'http_status' };
  }
}
