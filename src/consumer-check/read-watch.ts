import type { AnswerGate, ListAnswer } from '../mock/answer-gate.js';
import { DRIVEN_ENTITY, sameDataset } from './settle.js';

/**
 * How long a consumer must have done nothing the check can see (no list request, no delivery sent or
 * answered) to count as idle: far longer than a consumer takes to start the read a delivery asks for.
 */
export const QUIET_MS = 500;
/**
 * The quiet is watched in steps this long, each credited at most twice its length: when the check's own
 * process stalls (a loaded machine), the stall does not count as the consumer's quiet, since the
 * consumer's request may be waiting, unread, on a socket of this very process.
 */
const QUIET_STEP_MS = 50;

/** A read of the consumer held back by the mock. */
export interface HeldRead {
  /** Resolves with the held answer once the consumer's read came (undefined: released before one came). */
  held: Promise<ListAnswer | undefined>;
  release(): void;
  /** First pages of the held dataset answered while it was held: reads running beside it. */
  beside(): number;
}

/**
 * The consumer's reads of the driven entity during one check, as the mock's answer gate shows them:
 * how many, when the consumer last did anything, and the read held for a race case.
 */
export class ReadWatch {
  readonly #gate: AnswerGate;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #unwatch: () => void;
  readonly #listeners = new Set<(answer: ListAnswer) => void>();
  /** Counts everything the consumer did or was told: a change of it ends a quiet. */
  #activity = 0;
  #reads = 0;

  constructor(gate: AnswerGate, clock: { now: () => number; sleep: (ms: number) => Promise<void> }) {
    this.#gate = gate;
    this.#now = clock.now;
    this.#sleep = clock.sleep;
    this.#unwatch = gate.watch((answer) => {
      if (answer.entity !== DRIVEN_ENTITY) return;
      this.#reads += 1;
      this.#activity += 1;
      for (const listener of this.#listeners) listener(answer);
    });
  }

  /** List answers of the driven entity so far (every page). */
  get reads(): number {
    return this.#reads;
  }

  /** Something the consumer may act on happened: a delivery was sent, or answered. */
  touch(): void {
    this.#activity += 1;
  }

  /** Holds the first page of the consumer's next read of the driven entity. */
  holdNextRead(): HeldRead {
    const hold = this.#gate.holdNext((answer) => answer.entity === DRIVEN_ENTITY && answer.firstPage);
    let beside = 0;
    let released = false;
    let listener: ((answer: ListAnswer) => void) | undefined;
    void hold.held.then((held) => {
      if (!held || released) return;
      // The held answer itself was seen before this listener: every first page now is a read beside it.
      listener = (answer) => {
        if (answer.firstPage && sameDataset(answer, held)) beside += 1;
      };
      this.#listeners.add(listener);
    });
    return {
      held: hold.held,
      release: () => {
        released = true;
        if (listener) this.#listeners.delete(listener);
        hold.release();
        // The consumer gets an answer now: activity, as much as a read it makes.
        this.touch();
      },
      beside: () => beside,
    };
  }

  /**
   * Resolves once the consumer is idle: nothing read, sent or answered for QUIET_MS from now, `until`
   * settled, or `limitMs` passed (a consumer that never stops reading). With a held read whose dataset
   * the consumer read again meanwhile, resolves once `landed` does instead: that newer read must reach
   * the store before the held one is answered. False only when the limit passed first (or the newer
   * read never landed).
   */
  async idle(
    limitMs: number,
    options: { hold?: { read: HeldRead; landed: () => Promise<boolean> }; until?: Promise<unknown> | undefined } = {},
  ): Promise<boolean> {
    const { hold, until } = options;
    let done = false;
    void until?.then(
      () => (done = true),
      () => (done = true),
    );
    const deadline = this.#now() + limitMs;
    let seen = this.#activity;
    let quiet = 0;
    for (;;) {
      if (hold && hold.read.beside() > 0) return hold.landed();
      if (this.#activity !== seen) {
        seen = this.#activity;
        quiet = 0;
      }
      if (done || quiet >= QUIET_MS) return true;
      const started = this.#now();
      if (started >= deadline) return false;
      const pause = this.#sleep(Math.min(QUIET_STEP_MS, deadline - started));
      await (until ? Promise.race([pause, until.catch(() => {})]) : pause);
      quiet += Math.min(this.#now() - started, 2 * QUIET_STEP_MS);
    }
  }

  close(): void {
    this.#unwatch();
    this.#listeners.clear();
    this.#gate.releaseAll();
  }
}
