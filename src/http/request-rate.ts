import { abortableSleep } from './fetch-json.js';

/**
 * At most `requests` per `windowSeconds` from this process (the `rateLimit` setting): a burst of up
 * to `requests`, then one every window/requests (GCRA, the generic cell rate algorithm: one number of
 * state, however high the rate). The workers share theirs through Redis instead (queue/).
 */
export class RequestRate {
  readonly #interval: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** When the next request would be due if requests were evenly spaced. */
  #due = Number.NEGATIVE_INFINITY;

  constructor(
    limit: { requests: number; windowSeconds: number },
    now: () => number = Date.now,
    // A request waiting for its turn keeps the process alive, as one waiting for its answer does.
    sleep: (ms: number, signal?: AbortSignal) => Promise<void> = abortableSleep,
  ) {
    const windowMs = limit.windowSeconds * 1000;
    this.#interval = windowMs / limit.requests;
    this.#burst = windowMs - this.#interval;
    this.#now = now;
    this.#sleep = sleep;
  }

  /** Waits until one more request keeps within the rate, and counts it. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.#now();
      const due = Math.max(this.#due, now);
      const wait = due - this.#burst - now;
      if (wait <= 0) {
        this.#due = due + this.#interval;
        return;
      }
      await this.#sleep(wait, signal);
    }
  }
}
