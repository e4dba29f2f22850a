/** The stable codes of a `LedgerhookError`: what kind of failure it is, for programs to test. */
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
 * The facts of a `LedgerhookError`: always a `reason`, a stable snake_case name finer than `code`
 * (e.g. 'malformed_token', 'missing_webhook_secret'), plus facts such as a file or a status.
 * Messages state what happened and never name a flag.
 */
export interface LedgerhookErrorDetails {
  reason?: string;
  [fact: string]: unknown;
}

/** The reason of an error that names none more precise. */
const GENERIC_REASON: Record<LedgerhookErrorCode, string> = {
  ERR_USAGE: 'invalid_input',
  ERR_IO: 'io_failed',
  ERR_NETWORK: 'network_failed',
  ERR_HTTP_STATUS: 'http_status',
  ERR_AUTH: 'token_rejected',
  ERR_BAD_RESPONSE: 'bad_response',
  ERR_CHECK_FAILED: 'check_failed',
  ERR_ABORTED: 'aborted',
};

/**
 * The error everything in ledgerhook throws on purpose, so that one `catch` tells a deliberate
 * failure from a bug. `code` and `details.reason` are stable and meant for programs; `message` is
 * one line meant for people. A program tests `code` (or `details.reason`), never the message.
 */
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

/** True when a value is a `LedgerhookError`; narrows its type. */
export function isLedgerhookError(value: unknown): value is LedgerhookError {
  return value instanceof LedgerhookError;
}
