import { isObject } from '../util/is-object.js';

/**
 * What a store remembers of a dataset besides its data and state: how its webhooks
 * did, what no webhook announced, and the last reconcile. Kept beside the state (the file store's
 * record, Postgres's `activity` column); never part of a data commit, so losing it loses no data.
 */
export interface DatasetActivity {
  /** Runs a verified ENTITY_UPDATE caused, and how many of them brought no change. */
  webhookRuns: number;
  emptyWebhookRuns: number;
  /** Changes found by a run no webhook caused (a reconcile, a scheduled sync): missed webhooks. */
  missedChanges: number;
  missedRuns: number;
  lastMissedAt?: string | undefined;
  /** Milliseconds from a webhook's receipt to its data committed, newest last (the latest LATENCY_SAMPLES). */
  latenciesMs: number[];
  lastReconcile?: ReconcileRecord | undefined;
}

/** What a reconcile found, as counts (the result names each id; a record and a worker's summary keep these). */
export interface ReconcileCounts {
  serverItems: number;
  storedItems: number;
  missing: number;
  extra: number;
  different: number;
  /** Whether the difference was applied to the store (`reconcile --repair`). */
  repaired: boolean;
}

export interface ReconcileRecord extends ReconcileCounts {
  at: string;
}

/** Latencies kept per dataset: enough for a stable p95, small enough for a state file. */
export const LATENCY_SAMPLES = 256;

export const emptyActivity = (): DatasetActivity => ({
  webhookRuns: 0,
  emptyWebhookRuns: 0,
  missedChanges: 0,
  missedRuns: 0,
  latenciesMs: [],
});

const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

function reconcileRecord(value: unknown): ReconcileRecord | undefined {
  if (!isObject(value) || typeof value.at !== 'string') return undefined;
  return {
    at: value.at,
    serverItems: count(value.serverItems),
    storedItems: count(value.storedItems),
    missing: count(value.missing),
    extra: count(value.extra),
    different: count(value.different),
    repaired: value.repaired === true,
  };
}

/** Activity as read back from a state file or a column: anything malformed counts as nothing recorded. */
export function activityFrom(value: unknown): DatasetActivity | undefined {
  if (!isObject(value)) return undefined;
  const latencies = Array.isArray(value.latenciesMs)
    ? value.latenciesMs.filter(
        (entry): entry is number => typeof entry === 'number' && Number.isFinite(entry) && entry >= 0,
      )
    : [];
  return {
    webhookRuns: count(value.webhookRuns),
    emptyWebhookRuns: count(value.emptyWebhookRuns),
    missedChanges: count(value.missedChanges),
    missedRuns: count(value.missedRuns),
    ...(typeof value.lastMissedAt === 'string' ? { lastMissedAt: value.lastMissedAt } : {}),
    latenciesMs: latencies.slice(-LATENCY_SAMPLES),
    ...(reconcileRecord(value.lastReconcile) ? { lastReconcile: reconcileRecord(value.lastReconcile) } : {}),
  };
}

/** A run's outcome folded into the activity: what caused it and how many items it changed. */
export function withRun(
  previous: DatasetActivity | undefined,
  run:
    | { cause: 'webhook'; changes: number; latencyMs?: number | undefined }
    | { cause: 'unannounced'; changes: number; at: string },
): DatasetActivity {
  const next = { ...emptyActivity(), ...previous };
  if (run.cause === 'webhook') {
    next.webhookRuns += 1;
    if (run.changes === 0) next.emptyWebhookRuns += 1;
    if (run.latencyMs !== undefined)
      next.latenciesMs = [...next.latenciesMs, Math.round(run.latencyMs)].slice(-LATENCY_SAMPLES);
  } else if (run.changes > 0) {
    next.missedChanges += run.changes;
    next.missedRuns += 1;
    next.lastMissedAt = run.at;
  }
  return next;
}

export function withReconcile(previous: DatasetActivity | undefined, record: ReconcileRecord): DatasetActivity {
  return { ...emptyActivity(), ...previous, lastReconcile: record };
}

/** The p-th percentile (0-100) by nearest rank; undefined with no samples. */
export function percentile(samples: readonly number[], p: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}
