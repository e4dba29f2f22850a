import fs from 'node:fs';
import lockfile from 'proper-lockfile';
import { LedgerhookError } from '../../errors.js';

/**
 * A lock held across processes (proper-lockfile: a directory made with mkdir, its mtime refreshed
 * while held, taken over by another process once it is older than `stale`) that knows when it may
 * no longer be its holder's.
 *
 * proper-lockfile alone cannot say so at the moment that matters. A holder whose event loop stood
 * still longer than `stale` (SIGSTOP, Ctrl-Z, a paused VM, the wall clock jumping ahead) has lost
 * the lock to the next process without knowing it: its refresh timer has not run yet, so its next
 * write lands over the other's (a lost update), and once the timer runs, the default `onCompromised`
 * throws from it (an uncaught exception, a stack trace). Here the loss is recorded instead, and
 * `assertHeld`, called just before each write or rename the lock guards, refuses once the lock is
 * compromised or its last confirmed refresh is more than half of `stale` old: a holder that
 * refreshes every `update` (well below that) never trips it, one that stalled refuses before
 * another process can have judged its lock stale.
 */
export interface LeaseOptions {
  /** Another process takes the lock once its mtime is this old (ms; every holder of a file must agree). */
  stale?: number | undefined;
  /** How often a holder refreshes the mtime (ms; at least 1000, proper-lockfile's floor). */
  update?: number | undefined;
  /** How long to wait for a live holder before giving up (ms). */
  waitMs?: number | undefined;
  /** The clock the refreshes are stamped with (tests stall it); the wall clock, as others judge by it. */
  now?: (() => number) | undefined;
  /** Told once when proper-lockfile finds the lock compromised (besides it being recorded). */
  onLost?: ((error: Error) => void) | undefined;
}

export const DEFAULT_STALE_MS = 10_000;

/**
 * What every lease's fs inherits. proper-lockfile keeps the mtime precision it probed (a utimes and
 * a stat) on the fs object it is given; each lease's own fs hands it on to this one, so that only
 * the first lock of a process probes (each later one skips that utimes and stat).
 */
const sharedFs = Object.create(fs) as typeof fs;

function shareProbe(from: object): void {
  for (const symbol of Object.getOwnPropertySymbols(from))
    if (!Object.hasOwn(sharedFs, symbol))
      Object.defineProperty(sharedFs, symbol, { value: (from as Record<symbol, unknown>)[symbol] });
}
const DEFAULT_UPDATE_MS = 2_000;

export class LockLease {
  readonly lockPath: string;
  readonly #stale: number;
  readonly #now: () => number;
  /** What the lock guards, for the message: "writing /x/state.json". */
  readonly #doing: string;
  /** When the lock's mtime was last confirmed set by this holder (before the call that set it). */
  #confirmedAt = Number.NEGATIVE_INFINITY;
  /** The mtime this holder last gave the lock: on release, a directory with another is not removed. */
  #mtime: number | undefined;
  #lost: Error | undefined;
  #release: (() => Promise<void>) | undefined;
  /** From the lock's taking to its release: only then is its directory this holder's to guard. */
  #held = false;
  /** Whether this holder made the lock's directory (the stat that follows reads its first mtime). */
  #made = false;

  readonly #fs: typeof fs;

  private constructor(lockPath: string, doing: string, options: LeaseOptions) {
    this.lockPath = lockPath;
    this.#doing = doing;
    this.#stale = options.stale ?? DEFAULT_STALE_MS;
    this.#now = options.now ?? Date.now;
    this.#fs = this.#watchedFs();
  }

  /**
   * Takes the lock of `target` (its directory at `lockPath`), waiting for a live holder up to
   * `waitMs`; a crashed holder's lock is taken once stale. Rejects with proper-lockfile's error
   * (ELOCKED once the wait is over) for the caller to word.
   */
  static async acquire(target: string, lockPath: string, doing: string, options: LeaseOptions = {}) {
    const lease = new LockLease(lockPath, doing, options);
    const waitMs = options.waitMs ?? 20_000;
    const started = performance.now();
    const take = (maxRetryTime: number) =>
      lockfile.lock(target, {
        lockfilePath: lockPath,
        realpath: false,
        stale: lease.#stale,
        update: options.update ?? DEFAULT_UPDATE_MS,
        fs: lease.#fs,
        // A few seconds of backoff at a time: `retry` draws and sorts every timeout up front, which
        // for a minute's worth costs 0.25 ms on each lock, waited for or not.
        retries: { retries: 30, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true, maxRetryTime },
        onCompromised: (error) => {
          lease.#lost = error;
          options.onLost?.(error);
        },
      });
    for (;;) {
      const left = waitMs - (performance.now() - started);
      try {
        // At least 1 ms: `retry` reads a maxRetryTime of 0 as no limit (30 more retries, ~1.8 s past the bound).
        lease.#release = await take(Math.max(left, 1));
        break;
      } catch (error) {
        // A round that ran out of time ends with `retry`'s own error when it saw few ELOCKED (its
        // "main error" is the most frequent one): the lock was held all along, and is said so.
        const timedOut = (error as Error).message === 'RetryOperation timeout occurred';
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' && !timedOut) throw error;
        if (performance.now() - started >= waitMs)
          throw timedOut
            ? Object.assign(new Error(`Lock file is already being held`), { code: 'ELOCKED', file: target })
            : error;
      }
    }
    lease.#held = true;
    shareProbe(lease.#fs);
    return lease;
  }

  /**
   * The fs proper-lockfile uses for this lock (its documented `fs` option): node:fs, with the calls
   * that set the lock's mtime stamped with this holder's clock when they succeed, and a removal that
   * leaves alone a directory that is no longer this holder's.
   */
  #watchedFs(): typeof fs {
    const watched = Object.create(sharedFs) as typeof fs;
    const lockPath = this.lockPath;
    const stamp = (at: number, mtime?: number) => {
      this.#confirmedAt = Math.max(this.#confirmedAt, at);
      if (mtime !== undefined) this.#mtime = mtime;
    };
    watched.mkdir = ((path: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
      const at = this.#now();
      fs.mkdir(path, (error) => {
        if (!error && path === lockPath) {
          stamp(at);
          this.#made = true;
        }
        callback(error);
      });
    }) as typeof fs.mkdir;
    watched.stat = ((path: string, callback: (error: NodeJS.ErrnoException | null, stats: fs.Stats) => void) => {
      fs.stat(path, (error, stats) => {
        // After the mkdir, before the lock is handed over: proper-lockfile's probe, reading its mtime.
        if (!error && path === lockPath && this.#made && !this.#held) this.#mtime = stats.mtimeMs;
        callback(error, stats);
      });
    }) as typeof fs.stat;
    watched.utimes = ((path: string, atime: Date, mtime: Date, callback: fs.NoParamCallback) => {
      const at = this.#now();
      fs.utimes(path, atime, mtime, (error) => {
        if (!error && path === lockPath) stamp(at, mtime.getTime());
        callback(error);
      });
    }) as typeof fs.utimes;
    watched.rmdir = ((path: string, callback: fs.NoParamCallback) => {
      // (Taking over a stale lock removes another's directory: that is what stale means.)
      if (path !== lockPath || !this.#held || this.check() === undefined) return fs.rmdir(path, callback);
      // A holder past its time: the directory may be another's by now (its mtime says whose).
      fs.stat(path, (error, stats) => {
        const ours = !error && this.#mtime !== undefined && Math.abs(stats.mtimeMs - this.#mtime) < 1000;
        if (ours) fs.rmdir(path, callback);
        else callback(null);
      });
    }) as typeof fs.rmdir;
    return watched;
  }

  /** Why the lock may no longer be this holder's, or undefined while it surely is. */
  check(): string | undefined {
    if (this.#lost) return `another process took it over (${this.#lost.message})`;
    const since = this.#now() - this.#confirmedAt;
    if (since > this.#stale / 2)
      return `it was last refreshed ${Math.round(since / 1000)} s ago (this process stood still: suspended, or its clock jumped), so another process may hold it`;
    return undefined;
  }

  /** Throws, before a write or rename the lock guards, if the lock may no longer be this holder's. */
  assertHeld(): void {
    const why = this.check();
    if (why === undefined) return;
    throw new LedgerhookError(
      'ERR_IO',
      `stopped before ${this.#doing}: the lock ${this.lockPath} may no longer be this run's: ${why}; nothing was put in place, run it again`,
      { cause: this.#lost, details: { reason: 'lock_lost', path: this.lockPath } },
    );
  }

  /** Lets the lock go (never throws: one compromised is already another's). */
  async release(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    await release?.().catch(() => {});
    this.#held = false;
  }
}
