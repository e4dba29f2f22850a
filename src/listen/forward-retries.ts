import type { AttemptRecord } from '../capture/attempt-record.js';
import { DEFAULT_MAX_PENDING_FORWARD_BYTES, DEFAULT_MAX_PENDING_FORWARDS } from '../defaults.js';
import { delay } from '../util/delay.js';
import { type ForwardEdge, forwardRetryable, forwardSucceeded, forwardTo } from './route-forward.js';

export interface ForwardRetryOptions {
  /** Waits after the 1st, 2nd, ... failed attempt (`5s,30s,2m,10m`: at most five attempts). */
  scheduleMs: readonly number[];
  /** Forwards held at once (in flight or waiting); past it `hasRoom()` is false and the listener answers 503. */
  maxPending?: number | undefined;
  maxPendingBytes?: number | undefined;
  now: () => number;
  /** Injected so that tests never wait; rejects when the signal aborts. */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** Where each attempt is recorded (the capture file's owner); its failure is reported, the retries go on. */
  record?: ((attempt: AttemptRecord) => Promise<void>) | undefined;
  onAttempt?: ((attempt: AttemptRecord) => void) | undefined;
  onRecordError?: ((error: Error) => void) | undefined;
  /**
   * The headers of a later attempt (a retry, or the first attempt of a resumed forward) with a fresh
   * token: a receiver that checks the token's age (spec 5.2: 5 minutes) would refuse the original
   * one. Without it every attempt sends the delivery as it came.
   */
  resign?: ((body: Buffer, headers: Record<string, string>) => Promise<Record<string, string>>) | undefined;
}

/** One delivery due at one route. */
export interface PendingForward {
  deliveryId: string;
  body: Buffer;
  headers: Record<string, string>;
  route: string;
  edge: ForwardEdge;
  /** Attempts already made (0 for a new delivery). */
  attempts: number;
  dueAtMs: number;
}

/**
 * Forwards deliveries after their answer and retries the ones that fail (unreachable, timed out,
 * 5xx) on a schedule, recording every attempt. Bounded exactly: at most `maxPending` forwards (and
 * `maxPendingBytes` of their bodies) are held, counting those reserved for deliveries being answered
 * right now. The listener asks `hasRoom()` before it reads a delivery (a cheap early 503) and
 * `reserve()` before it answers 202 (the exact limit: many deliveries pass the first check at once);
 * `add()` then takes the reservation, `release()` gives back one that was not used. `close()` stops
 * the waits; what was still waiting is on disk as `retrying` and counted.
 */
export class ForwardRetrier {
  readonly #options: ForwardRetryOptions;
  readonly #stop = new AbortController();
  readonly #tasks = new Set<Promise<void>>();
  #bytes = 0;
  #reserved = 0;
  #reservedBytes = 0;
  #leftPending = 0;

  constructor(options: ForwardRetryOptions) {
    this.#options = options;
  }

  get pending(): number {
    return this.#tasks.size;
  }

  /** Whether `count` more forwards of `bytes` each would stay within both limits. */
  #fits(count: number, bytes: number): boolean {
    const maxPending = this.#options.maxPending ?? DEFAULT_MAX_PENDING_FORWARDS;
    const maxBytes = this.#options.maxPendingBytes ?? DEFAULT_MAX_PENDING_FORWARD_BYTES;
    return (
      this.#tasks.size + this.#reserved + count <= maxPending &&
      this.#bytes + this.#reservedBytes + count * bytes <= maxBytes
    );
  }

  hasRoom(): boolean {
    return this.#fits(1, 0);
  }

  /** Holds room for `count` forwards of a body of `bytes`, or returns false (and holds nothing). */
  reserve(count: number, bytes: number): boolean {
    if (this.#stop.signal.aborted || !this.#fits(count, bytes)) return false;
    this.#reserved += count;
    this.#reservedBytes += count * bytes;
    return true;
  }

  /** Gives back room reserved for forwards that will not be added (the delivery was not recorded). */
  release(count: number, bytes: number): void {
    this.#reserved = Math.max(0, this.#reserved - count);
    this.#reservedBytes = Math.max(0, this.#reservedBytes - count * bytes);
  }

  /**
   * Starts (or resumes) one forward, in room reserved for it (`reserved`) or taken now; ignored
   * (its reservation given back) once closing.
   */
  add(forward: PendingForward, reserved = false): void {
    if (reserved) this.release(1, forward.body.length);
    if (this.#stop.signal.aborted) return;
    this.#bytes += forward.body.length;
    const task = this.#run(forward).finally(() => {
      this.#bytes -= forward.body.length;
      this.#tasks.delete(task);
    });
    this.#tasks.add(task);
  }

  async #wait(untilMs: number): Promise<void> {
    const ms = untilMs - this.#options.now();
    if (ms <= 0 && !this.#stop.signal.aborted) return;
    await (this.#options.sleep ?? delay)(Math.max(0, ms), this.#stop.signal);
  }

  async #run(forward: PendingForward): Promise<void> {
    const { now, scheduleMs } = this.#options;
    let attempts = forward.attempts;
    try {
      await this.#wait(forward.dueAtMs);
      for (;;) {
        const atMs = now();
        const resign = attempts > 0 ? this.#options.resign : undefined;
        const headers = resign ? await resign(forward.body, forward.headers) : forward.headers;
        const { result } = await forwardTo(forward.edge, forward.body, headers, forward.route);
        attempts += 1;
        const wait = forwardSucceeded(result) || !forwardRetryable(result) ? undefined : scheduleMs[attempts - 1];
        const attempt: AttemptRecord = {
          kind: 'attempt',
          deliveryId: forward.deliveryId,
          route: forward.route,
          url: forward.edge.url,
          attempt: attempts,
          at: new Date(atMs).toISOString(),
          outcome: forwardSucceeded(result) ? 'delivered' : wait === undefined ? 'failed' : 'retrying',
        };
        if (resign) attempt.resigned = true;
        if (result.status !== undefined) attempt.status = result.status;
        if (result.latencyMs !== undefined) attempt.latencyMs = result.latencyMs;
        if (result.error !== undefined) attempt.error = result.error;
        const nextAtMs = wait === undefined ? undefined : now() + wait;
        if (nextAtMs !== undefined) attempt.nextAt = new Date(nextAtMs).toISOString();
        await this.#record(attempt);
        if (nextAtMs === undefined) return;
        await this.#wait(nextAtMs);
      }
    } catch {
      // Only a wait rejects (forwardTo never throws): the retrier is closing, and this forward is left
      // pending (its last line says when it is due).
      this.#leftPending += 1;
    }
  }

  async #record(attempt: AttemptRecord): Promise<void> {
    try {
      await this.#options.record?.(attempt);
    } catch (error) {
      this.#options.onRecordError?.(error as Error);
    }
    this.#options.onAttempt?.(attempt);
  }

  /** Resolves once nothing is in flight or waiting (every forward delivered or failed for good). */
  async idle(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }

  /** Stops every wait, lets attempts in flight finish and be recorded; resolves with the forwards left pending. */
  async close(): Promise<number> {
    this.#stop.abort(new Error('closing'));
    await this.idle();
    return this.#leftPending;
  }
}
