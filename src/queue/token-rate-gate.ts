import type { Redis } from 'ioredis';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { delay } from '../util/delay.js';

export interface TokenRateLimit {
  /** Requests allowed per window, per access token, across every worker. */
  requests: number;
  windowSeconds: number;
}

/** Waits of a limiter that said no: rate-limiter-flexible rejects with one of these. */
interface Rejection {
  msBeforeNext: number;
}
const isRejection = (value: unknown): value is Rejection =>
  typeof (value as { msBeforeNext?: unknown } | null)?.msBeforeNext === 'number';

/**
 * One limiter per access token shared by every worker through Redis (rate-limiter-flexible), and
 * a per-token pause set when the service answers 429: only that token's requests wait.
 * Keys are `ledgerhook:<queue>:rl:<token key>` and `ledgerhook:<queue>:pause:<token key>`.
 */
export class TokenRateGate {
  readonly #redis: Redis;
  readonly #limiter: RateLimiterRedis | undefined;
  readonly #prefix: string;

  private constructor(redis: Redis, prefix: string, limiter: RateLimiterRedis | undefined) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#limiter = limiter;
  }

  /**
   * The spec shows no rate limit: without `limit` (the default) only a 429's Retry-After pauses a
   * token. With one (the user's own setting), rate-limiter-flexible is loaded and shared through Redis.
   */
  static async create(redis: Redis, queueName: string, limit?: TokenRateLimit): Promise<TokenRateGate> {
    const prefix = `ledgerhook:${queueName}`;
    if (!limit) return new TokenRateGate(redis, prefix, undefined);
    const { RateLimiterRedis } = await import('rate-limiter-flexible');
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:rl`,
      points: limit.requests,
      duration: limit.windowSeconds,
    });
    return new TokenRateGate(redis, prefix, limiter);
  }

  /** Waits until this token may send one more request (a pause from a 429, then the shared budget). */
  async acquire(tokenKey: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const pausedMs = await this.#redis.pttl(`${this.#prefix}:pause:${tokenKey}`);
      if (pausedMs > 0) {
        await delay(pausedMs, signal);
        continue;
      }
      if (!this.#limiter) return;
      try {
        await this.#limiter.consume(tokenKey, 1);
        return;
      } catch (rejection) {
        if (!isRejection(rejection)) throw rejection;
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
