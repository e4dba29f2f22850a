/**
 * The CLI package's errors: the one base, `LedgerhookError` from @ledgerhook/webhooks, with the
 * reasons this package adds typed (error-reasons.ts), the HTTP status error of every request it makes
 * and the usage error every command throws.
 */
import { LedgerhookError } from '@ledgerhook/webhooks';
import type { ErrorReason } from './error-reasons.js';

export {
  LedgerhookError,
  isLedgerhookError,
  type LedgerhookErrorCode,
  type LedgerhookErrorDetails,
} from '@ledgerhook/webhooks';
export type { ErrorReason } from './error-reasons.js';

/** Whether an HTTP status refuses the credentials (401 Unauthorized, 403 Forbidden). */
export function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/**
 * An HTTP answer we cannot use; always names method, URL and status. A 401 or 403 is `ERR_AUTH`
 * (its own exit code): a token to fix, not a service to wait for.
 */
export class HttpStatusError extends LedgerhookError {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly body: string;

  constructor(method: string, url: string, status: number, body: string, hint?: string) {
    const excerpt = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    const detail = hint ? `: ${hint}` : excerpt ? `: ${excerpt.replace(/\s+/g, ' ')}` : '';
    super(isAuthStatus(status) ? 'ERR_AUTH' : 'ERR_HTTP_STATUS', `${method} ${url} answered ${status}${detail}`, {
      details: isAuthStatus(status) ? { reason: status === 401 ? 'token_rejected' : 'access_denied' } : {},
    });
    this.name = 'HttpStatusError';
    this.method = method;
    this.url = url;
    this.status = status;
    this.body = body;
  }
}

/** A usage error always says which: its reason is what `--json` reports and what the advice keys on. */
export function usageError(message: string, reason: ErrorReason, facts: Record<string, unknown> = {}): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', message, { details: { ...facts, reason } });
}
