/**
 * A cap on the bytes of request bodies held in memory at once, across all connections. Each
 * request may hold its first `freeBytes` without asking (so a normal small delivery is never
 * turned away by a flood of large ones); beyond that it must reserve from the shared budget.
 */
export class BodyBudget {
  readonly limitBytes: number;
  readonly freeBytes: number;
  #used = 0;

  constructor(limitBytes: number, freeBytes: number) {
    this.limitBytes = limitBytes;
    this.freeBytes = freeBytes;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** Takes `bytes` from the budget, or returns false (and takes nothing) when they do not fit. */
  reserve(bytes: number): boolean {
    if (this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
