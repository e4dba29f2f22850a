import { type ErrorReason, LedgerhookError } from '../errors.js';

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_ABORTED') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** host:port as a person would type it. */
function where(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/**
 * Turns whatever undici or the OS threw into one plain sentence naming the place
 * ("nothing is listening on localhost:3000"), as an ERR_NETWORK (exit 3).
 */
export function networkError(
  error: unknown,
  method: string,
  target: URL | string,
  timeoutMs?: number,
): LedgerhookError {
  if (error instanceof LedgerhookError) return error;
  const url = typeof target === 'string' ? new URL(target) : target;
  const code = codeOf(error);
  const name = (error as { name?: string })?.name;
  let message: string;
  let reason: ErrorReason = 'network_failed';
  switch (code) {
    case 'ECONNREFUSED':
      message = `nothing is listening on ${where(url)} (connection refused)`;
      reason = 'connection_refused';
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      message = `cannot resolve the host ${url.hostname}`;
      reason = 'host_not_found';
      break;
    case 'UND_ERR_CONNECT_TIMEOUT':
      message = `could not connect to ${where(url)} in time`;
      reason = 'connect_timeout';
      break;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      message = `${method} ${url.href} did not answer${timeoutMs ? ` within ${timeoutMs} ms` : ' in time'}`;
      reason = 'no_answer';
      break;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      message = `${method} ${url.href}: the connection was closed by ${where(url)} before an answer`;
      reason = 'connection_closed';
      break;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      message = `${where(url)} is unreachable from this machine`;
      reason = 'unreachable';
      break;
    default:
      if (name === 'TimeoutError') {
        message = `${method} ${url.href} did not answer${timeoutMs ? ` within ${timeoutMs} ms` : ' in time'}`;
        reason = 'no_answer';
      } else if (name === 'AbortError')
        return new LedgerhookError('ERR_ABORTED', `${method} ${url.href} was aborted`, { cause: error });
      else message = `${method} ${url.href} failed: ${(error as Error)?.message ?? String(error)}`;
  }
  return new LedgerhookError('ERR_NETWORK', message, { cause: error, details: { reason, origin: url.origin } });
}
