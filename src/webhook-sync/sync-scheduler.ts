/**
 * Runs jobs by key with two rules: never two runs of one key at once, and a burst of requests
 * for a key while it runs collapses into exactly one more run after it (so no update is lost
 * and none is fetched twice for nothing). Different keys run concurrently, at most `concurrency`.
 */
export class SyncScheduler {
  readonly #concurrency: number;
  readonly #running = new Set<string>();
  readonly #pending = new Map<string, () => Promise<void>>();
  readonly #queue: string[] = [];
  #active = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(concurrency = 4) {
    this.#concurrency = Math.max(1, concurrency);
  }

  /** 'queued' for a new run, 'coalesced' when a run of this key already waits (this request joins it). */
  request(key: string, job: () => Promise<void>): 'queued' | 'coalesced' {
    const already = this.#pending.has(key);
    this.#pending.set(key, job);
    if (!already) this.#queue.push(key);
    this.#pump();
    return already ? 'coalesced' : 'queued';
  }

  /** Queues a run only when none of this key waits (a periodic job never displaces a webhook's run). */
  requestIfIdle(key: string, job: () => Promise<void>): boolean {
    if (this.#pending.has(key)) return false;
    this.request(key, job);
    return true;
  }

  #pump(): void {
    while (this.#active < this.#concurrency) {
      const index = this.#queue.findIndex((key) => !this.#running.has(key));
      if (index < 0) break;
      const [key] = this.#queue.splice(index, 1) as [string];
      const job = this.#pending.get(key);
      this.#pending.delete(key);
      if (!job) continue;
      this.#running.add(key);
      this.#active += 1;
      void job()
        .catch(() => {})
        .finally(() => {
          this.#running.delete(key);
          this.#active -= 1;
          this.#pump();
          if (this.#active === 0 && this.#queue.length === 0) {
            for (const wake of this.#idleWaiters.splice(0)) wake();
          }
        });
    }
  }

  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.#active === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}
