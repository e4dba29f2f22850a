import type { ErrorReason } from '../error-reasons.js';
import { LedgerhookError } from '../errors.js';

/** The URL without its password: what may appear in messages and logs (Redis and Postgres URLs alike). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of ['password', 'sslpassword'])
      if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.href;
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/**
 * Checks that `url` is a URL of one of `protocols` (e.g. `redis:`), naming it as `what` ("queue",
 * "store") in the error, whose details.reason is `reason`; the password never appears in a message.
 */
export function checkServiceUrl(url: string, protocols: readonly string[], what: string, reason: ErrorReason): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LedgerhookError('ERR_USAGE', `${what} "${redactUrl(url)}" is not a URL`, { details: { reason } });
  }
  if (!protocols.includes(parsed.protocol))
    throw new LedgerhookError('ERR_USAGE', `${what} must be a ${protocols[0]}// URL, got ${parsed.protocol}`, {
      details: { reason },
    });
  return parsed;
}
