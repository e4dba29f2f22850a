import { LedgerhookError } from '../errors.js';
import { parseToken, type TokenParts } from './token-parts.js';

/**
 * Shows a token's header and claims without verifying anything (diagnostics only:
 * never trust what this returns). Throws ERR_USAGE with the reason when the token is malformed.
 */
export function decodeWebhookToken(token: string): TokenParts {
  const parsed = parseToken(token);
  if (!parsed.ok)
    throw new LedgerhookError('ERR_USAGE', `malformed token: ${parsed.reason}`, {
      details: { reason: 'malformed_token' },
    });
  return parsed.parts;
}
