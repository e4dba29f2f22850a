import { DEFAULT_CAPTURE_REFUSED_MAX_BYTES, DEFAULT_CAPTURE_REFUSED_PER_SECOND } from '../defaults.js';

export interface RefusedBoundOptions {
  /** Refused records written per second on average, in bursts of ten seconds' worth; 0: none. */
  perSecond?: number | undefined;
  /** Bytes of refused records written in all by one listener run; past it, none. */
  maxBytes?: number | undefined;
}

/** Which bound a refused record met first: the rate, or the run's total. */
export type RefusedLimit = 'rate' | 'total';

/**
 * How much of a flood of refused (forged) deliveries reaches the capture file: however fast and long
 * it comes, a listener run writes at most `perSecond` refused records a second (a token bucket holding
 * ten seconds' worth, so a short burst of genuine mistakes is kept whole) and `maxBytes` of them in
 * all. Past either, a refused delivery is counted, not written. Accepted deliveries never meet it.
 */
export class RefusedBound {
  readonly perSecond: number;
  readonly maxBytes: number;
  readonly #burst: number;
  #tokens: number;
  #refilledAtMs: number | undefined;
  #bytes = 0;
  #skipped = 0;
  #first: RefusedLimit | undefined;

  constructor(options: RefusedBoundOptions = {}) {
    this.perSecond = Math.max(0, options.perSecond ?? DEFAULT_CAPTURE_REFUSED_PER_SECOND);
    this.maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_CAPTURE_REFUSED_MAX_BYTES);
    this.#burst = this.perSecond * 10;
    this.#tokens = this.#burst;
  }

  /** Refused deliveries counted and not written so far. */
  get skipped(): number {
    return this.#skipped;
  }

  /** The bound met by the first one not written (undefined while all were). */
  get firstLimit(): RefusedLimit | undefined {
    return this.#first;
  }

  /**
   * Takes a place in the rate for one refused record, before anything is built for it (a forgery
   * past the rate costs nothing more); false: counted, not written.
   */
  takeRate(nowMs: number): boolean {
    if (this.#refilledAtMs !== undefined)
      this.#tokens = Math.min(this.#burst, this.#tokens + ((nowMs - this.#refilledAtMs) / 1000) * this.perSecond);
    this.#refilledAtMs = nowMs;
    if (this.#tokens >= 1 && this.#bytes < this.maxBytes) {
      this.#tokens -= 1;
      return true;
    }
    return this.#skip(this.#bytes >= this.maxBytes ? 'total' : 'rate');
  }

  /** Counts a serialised line of `bytes` into the total, or refuses it (counted) when it would pass it. */
  takeBytes(bytes: number): boolean {
    if (this.#bytes + bytes > this.maxBytes) return this.#skip('total');
    this.#bytes += bytes;
    return true;
  }

  #skip(limit: RefusedLimit): false {
    this.#skipped += 1;
    this.#first ??= limit;
    return false;
  }
}
