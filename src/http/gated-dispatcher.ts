import { Agent, type Dispatcher } from 'undici';
import { RequestRate } from './request-rate.js';

/**
 * An undici dispatcher whose every request first waits for `acquire` (undefined: no wait): the code
 * that makes the requests stays unaware of the limit, and every request is counted, retries too.
 */
export function gatedDispatcher(
  acquire: (options: Dispatcher.DispatchOptions) => Promise<void> | undefined,
  base: Dispatcher = new Agent(),
): Dispatcher {
  return base.compose((dispatch) => (options, handler) => {
    const waiting = acquire(options);
    if (waiting === undefined) return dispatch(options, handler);
    waiting.then(
      () => dispatch(options, handler),
      (error: unknown) => handler.onResponseError?.(null as never, error as Error),
    );
    return true;
  });
}

/** A dispatcher that keeps this process's requests within a rate (the `rateLimit` setting). */
export function pacedDispatcher(limit: { requests: number; windowSeconds: number }, signal?: AbortSignal): Dispatcher {
  const rate = new RequestRate(limit);
  return gatedDispatcher(() => rate.acquire(signal));
}
