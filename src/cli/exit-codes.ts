import type { LedgerhookErrorCode } from '../errors.js';

/** Every exit code ledgerhook uses; docs/exit-codes.md documents this table. */
export const EXIT = {
  ok: 0,
  checkFailed: 1,
  usage: 2,
  network: 3,
  /** The service refused the credentials (401/403), as gh's 4 means "authentication required". */
  auth: 4,
  internal: 70,
  interrupted: 130,
} as const;

const BY_CODE: Record<LedgerhookErrorCode, number> = {
  ERR_USAGE: EXIT.usage,
  ERR_IO: EXIT.usage,
  ERR_CHECK_FAILED: EXIT.checkFailed,
  ERR_NETWORK: EXIT.network,
  ERR_HTTP_STATUS: EXIT.network,
  ERR_AUTH: EXIT.auth,
  ERR_BAD_RESPONSE: EXIT.network,
  ERR_ABORTED: EXIT.interrupted,
};

export function exitCodeFor(code: LedgerhookErrorCode): number {
  return BY_CODE[code];
}
