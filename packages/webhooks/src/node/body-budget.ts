/**
 * A cap on the bytes of request bodies held in memory at once, across all connections. Each
 * request may hold its first `freeBytes` without asking (so a normal small delivery is never
 * turned away by a flood of large ones); beyond that it must reserve from the shared budget, at
 * once (`reserve`) or by waiting its turn (`wait`).
 */
export class BodyBudget {
  readonly limitBytes: number;
  readonly freeBytes: number;
  #used = 0;
  /** Requests waiting for room, first come first served. */
  readonly #queue: Array<{ bytes: number; settle: (granted: boolean) => void }> = [];

  constructor(limitBytes: number, freeBytes: number) {
    this.limitBytes = limitBytes;
    this.freeBytes = freeBytes;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** Requests waiting for room now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Takes `bytes` from the budget, or returns false (and takes nothing) when they do not fit or
   * others wait for room before it (no one jumps the queue).
   */
  reserve(bytes: number): boolean {
    if (this.#queue.length > 0 || this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    return true;
  }

  /**
   * Waits, behind those already waiting, until `bytes` fit, and takes them: resolves true then, or
   * false once `maxWaitMs` passed or `cancel()` was called (nothing taken).
   */
  wait(bytes: number, maxWaitMs: number): { granted: Promise<boolean>; cancel(): void } {
    if (this.reserve(bytes)) return { granted: Promise.resolve(true), cancel: () => {} };
    let resolve!: (granted: boolean) => void;
    const granted = new Promise<boolean>((settle) => {
      resolve = settle;
    });
    const entry = {
      bytes,
      settle(ok: boolean) {
        clearTimeout(timer);
        resolve(ok);
      },
    };
    // Leaving (timed out, or the request gone) is synchronous: a request out of the queue is never let in.
    const leave = () => {
      const at = this.#queue.indexOf(entry);
      if (at === -1) return;
      this.#queue.splice(at, 1);
      entry.settle(false);
      // The one leaving may have been first: those behind it may fit now.
      this.#grant();
    };
    const timer = setTimeout(leave, maxWaitMs);
    this.#queue.push(entry);
    return { granted, cancel: leave };
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
    this.#grant();
  }

  /** Lets in, in order, every waiting request that fits now. */
  #grant(): void {
    for (let first = this.#queue[0]; first !== undefined; first = this.#queue[0]) {
      if (this.#used + first.bytes > this.limitBytes) return;
      this.#queue.shift();
      this.#used += first.bytes;
      first.settle(true);
    }
  }
}
