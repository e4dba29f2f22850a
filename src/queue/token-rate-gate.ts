import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { delay } from '../util/delay.js';

export interface TokenRateLimit {
  /** Requests allowed per window, per access token, across every worker. */
  requests: number;
  windowSeconds: number;
}

/** What the service allows (issue #13: about 1,000 requests per 5 minutes per token). */
export const DEFAULT_TOKEN_RATE_LIMIT: TokenRateLimit = { requests: 1000, windowSeconds: 300 };

/**
 * One limiter per access token shared by every worker through Redis (rate-limiter-flexible), and
 * a per-token pause set when the service answers 429: only that token's requests wait.
 * Keys are `ledgerhook:<queue>:rl:<token key>` and `ledgerhook:<queue>:pause:<token key>`.
 */
export class TokenRateGate {
  readonly #redis: Redis;
  readonly #limiter: RateLimiterRedis;
  readonly #prefix: string;

  constructor(redis: Redis, queueName: string, limit: TokenRateLimit = DEFAULT_TOKEN_RATE_LIMIT) {
    this.#redis = redis;
    this.#prefix = `ledgerhook:${queueName}`;
    this.#limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${this.#prefix}:rl`,
      points: limit.requests,
      duration: limit.windowSeconds,
    });
  }

  /** Waits until this token may send one more request (a pause from a 429, then the shared budget). */
  async acquire(tokenKey: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const pausedMs = await this.#redis.pttl(`${this.#prefix}:pause:${tokenKey}`);
      if (pausedMs > 0) {
        await delay(pausedMs, signal);
        continue;
      }
      try {
        await this.#limiter.consume(tokenKey, 1);
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        await delay(Math.max(10, rejection.msBeforeNext), signal);
      }
    }
  }

  /** Pauses every worker's requests with this token for `ms` (the service's Retry-After). */
  async pause(tokenKey: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    const key = `${this.#prefix}:pause:${tokenKey}`;
    // Only ever lengthens a pause: a shorter Retry-After seen later does not cut it.
    const current = await this.#redis.pttl(key);
    if (current < ms) await this.#redis.set(key, '1', 'PX', Math.ceil(ms));
  }
}
