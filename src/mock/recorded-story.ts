import type { RecordedHistory, StoryStep } from './recorded-history.js';

export type WebhookStep = Extract<StoryStep, { kind: 'webhook' }>;

export type StoryEvent =
  | { type: 'story-started' }
  | {
      type: 'change-visible';
      dataset: string;
      version: number;
      changed: number;
      deleted: number;
      lastUpdatedDate: string;
      announcedBy?: string | undefined;
    }
  /** A change waits for the consumer to read its dataset as the recording did first (bounded). */
  | { type: 'waiting-for-read'; dataset: string; reads: number; recorded: number }
  | { type: 'read-not-seen'; dataset: string; reads: number; recorded: number }
  | { type: 'story-done' };

/** How long a change waits for the consumer's read the recording shows before it; then the story goes on. */
export const DEFAULT_READ_WAIT_MS = 10_000;

/** The timer edge: injected so that a test decides when time passes. */
export interface StoryTimer {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: StoryTimer = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface StoryOptions {
  history: RecordedHistory;
  /** Makes a dataset's version visible (RecordedMockService.show). */
  show: (key: string, version: number) => void;
  /** The reads of a dataset the consumer has started so far (RecordedMockService.readsOf). */
  readsOf: (key: string) => number;
  readWaitMs?: number | undefined;
  /** Sends one recorded webhook again; resolves once its first attempt is answered. Without it webhooks are skipped. */
  send?: ((step: WebhookStep) => Promise<void>) | undefined;
  /** 10 plays the recording ten times faster (default 1). */
  speed?: number | undefined;
  now?: (() => number) | undefined;
  timer?: StoryTimer | undefined;
  onEvent?: ((event: StoryEvent) => void) | undefined;
}

export interface Story {
  /** Starts the clock (once): every step due at once is taken before this returns. */
  start(): void;
  /** The consumer started a read: a change waiting for it may go on. */
  read(): void;
  readonly started: boolean;
  /** Resolves once every step was taken (or the story was stopped). */
  done(): Promise<void>;
  stop(): void;
}

/**
 * The recorded timeline told again: each step at its recorded offset from the first event (divided
 * by the speed), in order. A change becomes visible at once; a webhook is sent and awaited before
 * the next step, so that the consumer sees the changes and the webhooks in the recorded order. A
 * change never overtakes a read the recording shows before it: it waits (up to `readWaitMs`) for the
 * consumer to start that read, and the rest of the story waits with it.
 */
export function createStory(options: StoryOptions): Story {
  const { history } = options;
  const now = options.now ?? Date.now;
  const timer = options.timer ?? realTimer;
  const speed = options.speed ?? 1;
  const readWaitMs = options.readWaitMs ?? DEFAULT_READ_WAIT_MS;
  let startedAt: number | undefined;
  /** How far the story fell behind its recorded rhythm while changes waited for reads. */
  let behind = 0;
  let waitingSince: number | undefined;
  let index = 0;
  let sending = false;
  let stopped = false;
  let pending: unknown;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const take = (step: StoryStep): void => {
    if (step.kind === 'change') {
      options.show(step.key, step.version);
      const version = history.datasets.get(step.key)?.versions[step.version];
      options.onEvent?.({
        type: 'change-visible',
        dataset: step.key,
        version: step.version,
        changed: version?.changed ?? 0,
        deleted: version?.deleted ?? 0,
        lastUpdatedDate: version?.reported ?? '',
        announcedBy: version?.announcedBy,
      });
      return;
    }
    if (!options.send) return;
    sending = true;
    void options.send(step).finally(() => {
      sending = false;
      pump();
    });
  };
  const wake = (ms: number) => {
    if (pending !== undefined) timer.clear(pending);
    pending = timer.set(() => {
      pending = undefined;
      pump();
    }, ms);
  };
  /** False while the step is a change whose earlier read the consumer has not made yet (and may still make). */
  const readFor = (step: StoryStep, due: number): boolean => {
    if (step.kind !== 'change') return true;
    const reads = options.readsOf(step.key);
    const waiting = { dataset: step.key, reads, recorded: step.readsBefore };
    if (reads < step.readsBefore) {
      if (waitingSince === undefined) {
        waitingSince = now();
        options.onEvent?.({ type: 'waiting-for-read', ...waiting });
      }
      const left = waitingSince + readWaitMs - now();
      if (left > 0) {
        wake(left);
        return false;
      }
      options.onEvent?.({ type: 'read-not-seen', ...waiting });
    }
    if (waitingSince !== undefined) behind += Math.max(0, now() - due);
    waitingSince = undefined;
    return true;
  };
  const pump = (): void => {
    if (stopped || startedAt === undefined) return;
    while (index < history.steps.length && !sending) {
      const step = history.steps[index] as StoryStep;
      const due = startedAt + behind + (step.at - history.origin) / speed;
      const wait = due - now();
      if (wait > 0) {
        wake(wait);
        return;
      }
      if (!readFor(step, due)) return;
      index += 1;
      take(step);
    }
    if (index >= history.steps.length && !sending) {
      options.onEvent?.({ type: 'story-done' });
      stopped = true;
      finish();
    }
  };
  return {
    start() {
      if (startedAt !== undefined) return;
      startedAt = now();
      options.onEvent?.({ type: 'story-started' });
      pump();
    },
    read: () => pump(),
    get started() {
      return startedAt !== undefined;
    },
    done: () => finished,
    stop() {
      stopped = true;
      if (pending !== undefined) timer.clear(pending);
      finish();
    },
  };
}
