import { LedgerhookError } from '../errors.js';
import type { ListAnswer } from '../mock/answer-gate.js';
import type { MockItem } from '../mock/entity-generators.js';
import type { MockService } from '../mock/mock-service.js';
import { filterOf } from '../mock/paging.js';
import { compareDataset, type DatasetDifference, isEqual, LISTED_IDS } from './compare-datasets.js';
import { datasetParts, readConsumerState } from './state-document.js';
import type { StateReader } from './state-reader.js';

/** The entity the battery drives: the one with types, and the spec's PENDING filter. */
export const DRIVEN_ENTITY = 'expense';
/** Its list path (spec 4.2), where the check changes its data. */
export const DRIVEN_PATH = '/expenses';

/** How the consumer's state compares with the service at one poll. */
export interface StateComparison {
  converged: boolean;
  /** The driven datasets compared (every one the state has shown during the run). */
  datasets: string[];
  /** The datasets that differ. */
  difference: DatasetDifference[];
}

export interface Settled extends StateComparison {
  /** From the start of the wait to convergence, or to the deadline. */
  waitedMs: number;
  /** Why the last read of the state failed, when it did (a convergence never seen may be an unreadable state). */
  readError?: string | undefined;
}

/**
 * Compares the consumer's state with the service. The datasets compared are those of the driven
 * entity the state has shown at any poll of the run (`known`, grown here): a dataset that later
 * disappears from the state is a difference, not a dataset less to check. Others are `ignored`.
 */
export function compareState(
  document: unknown,
  context: { service: MockService; userId: string; stateLabel: string; known: Set<string>; ignored: Set<string> },
  listed = LISTED_IDS,
): StateComparison {
  const held = readConsumerState(document, context.userId, context.stateLabel);
  for (const key of held.keys()) {
    const { path } = datasetParts(key);
    if (context.service.entityFor(path) === DRIVEN_ENTITY) context.known.add(key);
    else context.ignored.add(key);
  }
  const datasets = [...context.known].sort();
  const difference = datasets
    .map((key) => {
      const { path, filter } = datasetParts(key);
      return compareDataset(key, context.service.dataset(path, filter).data, held.get(key), listed);
    })
    .filter((d) => !isEqual(d));
  return { converged: datasets.length > 0 && difference.length === 0, datasets, difference };
}

/** The same dataset: the same path and the same filter (sorted by name, as the mock names them). */
export function sameDataset(a: Pick<ListAnswer, 'path' | 'filter'>, b: Pick<ListAnswer, 'path' | 'filter'>): boolean {
  return a.path === b.path && JSON.stringify(a.filter) === JSON.stringify(b.filter);
}

/** Compares the consumer's copy of one dataset with `items`; its other datasets are not looked at. */
export function compareOneDataset(
  document: unknown,
  context: { userId: string; stateLabel: string },
  dataset: Pick<ListAnswer, 'path' | 'filter'>,
  items: readonly MockItem[],
): StateComparison {
  const held = readConsumerState(document, context.userId, context.stateLabel);
  const key = [...held.keys()].find((candidate) => {
    const { path, filter } = datasetParts(candidate);
    return sameDataset({ path, filter: filterOf(new URLSearchParams(filter)) }, dataset);
  });
  if (key === undefined) return { converged: false, datasets: [], difference: [] };
  const difference = compareDataset(key, items, held.get(key));
  return { converged: isEqual(difference), datasets: [key], difference: isEqual(difference) ? [] : [difference] };
}

export interface SettleOptions {
  readState: StateReader;
  compare: (document: unknown) => StateComparison;
  settleMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal | undefined;
}

/** The first poll comes soon; later ones back off to this, and never run a slow state command back to back. */
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

/**
 * Polls the consumer's state until it equals the service or `settleMs` has passed (a deadline, never a
 * fixed sleep: a fast consumer is judged as soon as it has converged). The last poll is at the deadline.
 */
export async function settle(options: SettleOptions): Promise<Settled> {
  const started = options.now();
  const deadline = started + options.settleMs;
  let interval = FIRST_POLL_MS;
  let last: StateComparison = { converged: false, datasets: [], difference: [] };
  for (;;) {
    const readStarted = options.now();
    let readError: string | undefined;
    try {
      last = options.compare(await options.readState(options.signal));
    } catch (error) {
      // A state that cannot be read now (a file mid-write, a restart) is "not yet"; a stop is a stop.
      if (!(error instanceof LedgerhookError) || error.code === 'ERR_ABORTED') throw error;
      readError = error.message;
    }
    const at = options.now();
    if (last.converged && readError === undefined) return { ...last, waitedMs: at - started };
    if (at >= deadline) return { ...last, converged: false, waitedMs: at - started, readError };
    try {
      await options.sleep(Math.min(Math.max(interval, at - readStarted), deadline - at), options.signal);
    } catch (error) {
      // The sleep rejects with the signal's reason (whatever the caller aborted with): a stop, not a bug.
      throw new LedgerhookError('ERR_ABORTED', 'stopped while waiting for the consumer', { cause: error });
    }
    interval = Math.min(interval * 2, MAX_POLL_MS);
  }
}
