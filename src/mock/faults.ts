import { json, type MockFaults, type MockRequest, type MockResponse } from './mock-types.js';

/**
 * Fault injection for API requests: a per-token rate limit, dropped connections and 5xx answers.
 * The clock and the random source are injected, so a test decides exactly what happens.
 */
export class FaultInjector {
  readonly #faults: MockFaults;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  /** What was injected so far: check-consumer reports whether its consumer met a 429 at all. */
  readonly counts = { rateLimited: 0, failed: 0, dropped: 0 };

  constructor(faults: MockFaults, random: () => number, now: () => number) {
    this.#faults = faults;
    this.#random = random;
    this.#now = now;
  }

  /** The answer that replaces the real one, or undefined to answer normally. */
  check(request: MockRequest): MockResponse | undefined {
    const limited = this.#rateLimited(request);
    if (limited) return limited;
    const { dropRate, failRate } = this.#faults;
    if (dropRate && this.#random() < dropRate) {
      this.counts.dropped += 1;
      return { status: 0, headers: {}, body: null, drop: true };
    }
    if (failRate && this.#random() < failRate) {
      this.counts.failed += 1;
      const status = this.#random() < 0.5 ? 500 : 503;
      return json(status, {
        error: status === 500 ? 'internal_error' : 'unavailable',
        message: `injected fault (fail rate ${failRate})`,
      });
    }
    return undefined;
  }

  /** Extra latency of every answer, if any. */
  get latencyMs(): number | undefined {
    return this.#faults.latencyMs;
  }

  #rateLimited(request: MockRequest): MockResponse | undefined {
    const rateLimit = this.#faults.rateLimit;
    if (!rateLimit) return undefined;
    const now = this.#now();
    const key = request.headers.authorization ?? '';
    const windowMs = rateLimit.windowSeconds * 1000;
    let window = this.#windows.get(key);
    if (!window || now - window.start >= windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= rateLimit.requests) return undefined;
    this.counts.rateLimited += 1;
    const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
    return json(
      429,
      { error: 'rate_limited', message: `more than ${rateLimit.requests} requests in ${rateLimit.windowSeconds}s` },
      { 'retry-after': String(retryAfter) },
    );
  }
}
