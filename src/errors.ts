import type { ErrorReason } from './error-reasons.js';

export type { ErrorReason } from './error-reasons.js';
/**
 * One error base class for everything ledgerhook throws on purpose.
 * `code` is stable and meant for programs; `message` is one line meant for people.
 * The CLI maps codes to exit codes in one place (src/cli/exit-codes.ts).
 */
export type LedgerhookErrorCode =
  /** The caller passed something unusable (flag, file, JSON, target...). */
  | 'ERR_USAGE'
  /** A file could not be read or written. */
  | 'ERR_IO'
  /** A remote peer could not be reached (refused, DNS, timeout, reset). */
  | 'ERR_NETWORK'
  /** A remote peer answered with an HTTP status we treat as failure. */
  | 'ERR_HTTP_STATUS'
  /** A remote peer refused the credentials (HTTP 401 or 403): the token is wrong, expired or lacks access. */
  | 'ERR_AUTH'
  /** A remote peer answered 2xx but the body is not what the interface promises. */
  | 'ERR_BAD_RESPONSE'
  /** A check the user asked for did not hold (webhook invalid, receiver wrong). */
  | 'ERR_CHECK_FAILED'
  /** The operation was aborted through an AbortSignal (Ctrl-C). */
  | 'ERR_ABORTED';

/**
 * Neutral facts about an error, for programs and for the CLI's advice table (src/cli/error-advice.ts).
 * `reason` is a stable, finer-grained name than `code` (e.g. 'port_in_use'); library messages state
 * what happened and never name a CLI flag: the CLI appends the flag advice for a reason.
 */
export interface LedgerhookErrorDetails {
  reason?: ErrorReason;
  [fact: string]: unknown;
}

/** The reason of an error that names none more precise. */
const GENERIC_REASON: Record<LedgerhookErrorCode, ErrorReason> = {
  ERR_USAGE: 'invalid_input',
  ERR_IO: 'io_failed',
  ERR_NETWORK: 'network_failed',
  ERR_HTTP_STATUS: 'http_status',
  ERR_AUTH: 'token_rejected',
  ERR_BAD_RESPONSE: 'bad_response',
  ERR_CHECK_FAILED: 'check_failed',
  ERR_ABORTED: 'aborted',
};

export class LedgerhookError extends Error {
  readonly code: LedgerhookErrorCode;
  readonly details: LedgerhookErrorDetails;

  constructor(
    code: LedgerhookErrorCode,
    message: string,
    options?: { cause?: unknown; details?: LedgerhookErrorDetails },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LedgerhookError';
    this.code = code;
    // Every error says which: a reason given, or the generic one of its code.
    this.details = { ...options?.details, reason: options?.details?.reason ?? GENERIC_REASON[code] };
  }
}

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

export function isLedgerhookError(value: unknown): value is LedgerhookError {
  return value instanceof LedgerhookError;
}

/** A usage error always says which: its reason is what `--json` reports and what the advice keys on. */
export function usageError(message: string, reason: ErrorReason, facts: Record<string, unknown> = {}): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', message, { details: { ...facts, reason } });
}
