import { LedgerhookError } from '../errors.js';

/**
 * The next page's request, sent on a guess of its cursor read from the end of the page's bytes
 * (dataset/item-bytes.ts trailingCursor) before they are parsed: the parse (the longest step between
 * two requests) then overlaps the server's work on the next page. The parsed envelope decides: `take`
 * keeps the request only for the cursor it names and cancels it otherwise, as it does when a run stops.
 */
export class RequestAhead<T> {
  #ahead: { cursor: string; answer: Promise<T>; cancel: AbortController } | undefined;

  /** Sends the request for `cursor` (`send`, cancelled with the run or by `take`), cancelling an earlier guess. */
  guess(cursor: string, send: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): void {
    this.cancel();
    const cancel = new AbortController();
    const answer = send(AbortSignal.any([signal, cancel.signal]));
    answer.catch(() => {}); // taken, or cancelled: a rejection nobody waits for is no error
    this.#ahead = { cursor, answer, cancel };
  }

  /** The answer to the guess if it was `cursor`; undefined (the guess cancelled) otherwise. */
  take(cursor: string): Promise<T> | undefined {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (ahead?.cursor === cursor) return ahead.answer;
    ahead?.cancel.abort();
    return undefined;
  }

  cancel(): void {
    this.#ahead?.cancel.abort();
    this.#ahead = undefined;
  }
}

/**
 * Which page the reader has asked for: the request for the page after it may go out only then,
 * once the reader's work on the page before it has started (its checkpoint: paginate's beforeNext).
 */
export class AskedPage {
  #asked: number;
  #waiting: Array<() => void> = [];

  constructor(first: number) {
    this.#asked = first;
  }

  ask(index: number): void {
    this.#asked = index;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const wake of waiting) wake();
  }

  /** Resolves once page `index` is asked for; rejects if `signal` aborts first (the run stopped). */
  async until(index: number, signal: AbortSignal): Promise<void> {
    while (this.#asked < index) {
      if (signal.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped', { cause: signal.reason });
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        signal.addEventListener('abort', done, { once: true });
        this.#waiting.push(done);
      });
    }
  }
}
