import { Agent, type Dispatcher } from 'undici';
import { gatedDispatcher } from '../http/gated-dispatcher.js';
import { tokenKey } from './sync-job.js';
import type { TokenRateGate } from './token-rate-gate.js';

function authorization(headers: Dispatcher.DispatchOptions['headers']): string | undefined {
  if (!headers) return undefined;
  const pairs: Iterable<readonly [unknown, unknown]> = Array.isArray(headers)
    ? headers.flatMap((value, index) => (index % 2 === 0 ? [[value, headers[index + 1]] as const] : []))
    : Symbol.iterator in headers
      ? (headers as Iterable<readonly [unknown, unknown]>)
      : Object.entries(headers);
  for (const [name, value] of pairs) if (String(name).toLowerCase() === 'authorization') return String(value);
  return undefined;
}

/**
 * An undici dispatcher whose every request first takes a slot from its token's shared limiter:
 * the sync code stays unaware of Redis, and every request of every worker is counted.
 */
export function rateLimitedDispatcher(gate: TokenRateGate, signal?: AbortSignal, base: Dispatcher = new Agent()) {
  return gatedDispatcher((options) => {
    const token = authorization(options.headers)?.replace(/^Bearer\s+/i, '');
    return token === undefined ? undefined : gate.acquire(tokenKey(token), signal);
  }, base);
}
