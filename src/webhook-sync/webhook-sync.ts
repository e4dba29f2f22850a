import type { Dispatcher } from 'undici';
import { findEntity } from '../catalogue/entities.js';
import { checkEntityPaths, entityPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { LedgerhookError } from '../errors.js';
import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { type RawEntityUpdateBody, parseWebhookBody, type ParsedWebhookBody } from '../webhook/bodies.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { datasetKey, stateKey, tokenFingerprint } from '../store/identity.js';
import { SharedBackoff } from '../http/retry-policy.js';
import { type SyncSummary, syncDataset } from '../sync/sync-dataset.js';
import { isTransientFailure } from '../sync/transient.js';
import { transientWait } from '../util/backoff.js';
import { SyncScheduler } from './sync-scheduler.js';
import { badUserReason, lifecycleEvent } from './body-events.js';
import { type ReconcileEvent, startReconcileTimer } from './reconcile-timer.js';
import { type Receipt, ReceiptWindows, recordWebhookRun } from './run-activity.js';
import { noTelemetry, type Telemetry, type TelemetrySpan, traceOf } from '../telemetry/telemetry.js';
import { RunLinks } from '../telemetry/run-links.js';

export type WebhookSyncEvent =
  | { type: 'sync-start'; userId: string; entity: string; dataset: string; run: number }
  | { type: 'sync-done'; userId: string; entity: string; run: number; summary: SyncSummary }
  | { type: 'sync-failed'; userId: string; entity: string; dataset: string; run: number; error: string }
  /** A transient failure (service or store unreachable, 5xx, 429): the sync runs again after `inMs`. */
  | {
      type: 'sync-retry';
      userId: string;
      entity: string;
      dataset: string;
      run: number;
      retry: number;
      inMs: number;
      error: string;
    }
  | { type: 'sync-coalesced'; userId: string; entity: string; dataset: string }
  | { type: 'unknown-entity'; userId: string; entity: string }
  | { type: 'no-token'; userId: string; entities: string[] }
  /** A userId that cannot name a user of its own ('', '.', '..', too long): nothing synced. */
  | { type: 'bad-user'; userId: string; error: string }
  /** An authentic delivery whose body is not the spec's shape (a userId that is a number, say): nothing synced. */
  | { type: 'invalid-body'; code: 'invalid_user' | 'invalid_body'; reason: string }
  | { type: 'lifecycle'; userId: string; event: string; message: string; known: boolean }
  | ReconcileEvent;

export interface WebhookSyncOptions {
  baseUrl: string;
  /** The access token for a user, or undefined when there is none (recorded, not fatal). */
  tokenFor: (userId: string) => string | undefined;
  /** Where each user's data and state go (a FileStore keeps each user in a directory of their own). */
  store: DatasetStore;
  limit?: number | undefined;
  /** Answers to a resumed read's cursor that mean it expired (syncDataset's expiredCursorStatuses). */
  expiredCursorStatuses?: readonly number[] | undefined;
  /** List paths that replace the catalogue's for some entities, e.g. `{ expense: '/expenses/expenses' }`. */
  paths?: EntityPaths | undefined;
  /**
   * A sync failing for a transient reason is run again after firstMs, doubling up to capMs, at most
   * `max` times (default 2 s, 60 s, 8: about five minutes), each said as a sync-retry event.
   */
  retry?: { firstMs?: number | undefined; capMs?: number | undefined; max?: number | undefined } | undefined;
  /** Waiting allowed per request for 429 and 5xx answers before a run fails (then retried as above). */
  maxWaitMs?: number | undefined;
  /** Datasets synced at once across all users. */
  concurrency?: number | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** Keep removed items as tombstones with when and why they left (syncDataset's keepDeleted). */
  keepDeleted?: boolean | undefined;
  /** Reconcile every synced dataset this often, with repair (what it repairs no webhook announced). */
  reconcileEveryMs?: number | undefined;
  /** Clock in ms since the epoch, for the time from a webhook to its data committed (freshness). */
  now?: (() => number) | undefined;
  onEvent?: ((event: WebhookSyncEvent) => void) | undefined;
  /**
   * Traces and metrics (openTelemetry()): each run is a span in the trace of the first delivery it
   * answers (the listener's `telemetry` gives deliveries theirs), linked to the others coalesced into it.
   */
  telemetry?: Telemetry | undefined;
}

/** What every sync started by one webhook sync shares. */
interface SyncRunner {
  options: WebhookSyncOptions;
  scheduler: SyncScheduler;
  backoff: SharedBackoff;
  emit: (event: WebhookSyncEvent) => void;
  /** Numbers the runs in the order they start. */
  nextRun: () => number;
  /** Runs `then` after `ms` (a pending retry); cancelled when the signal aborts. */
  later: (ms: number, then: () => void) => void;
  /** When the deliveries each dataset's next run answers first arrived. */
  receipts: ReceiptWindows;
  /** The spans of the deliveries each dataset's next run answers (traced only). */
  links: RunLinks;
}

/** One dataset's sync as the scheduler runs it: reported from start to done or failed, never thrown. */
async function runSync(
  runner: SyncRunner,
  token: string,
  userId: string,
  entity: string,
  path: string,
  again: (retry: number, inMs: number) => void,
  retry = 0,
  key = '',
) {
  const { options, emit } = runner;
  const run = runner.nextRun();
  const firstReceipt = runner.receipts.take(key);
  const caused = runner.links.take(key);
  const telemetry = options.telemetry ?? noTelemetry;
  emit({ type: 'sync-start', userId, entity, dataset: path, run });
  try {
    const ref = { baseUrl: options.baseUrl, token, path, userId };
    const summary = await syncDataset({
      ...ref,
      cause: 'webhook',
      deliveryId: firstReceipt?.deliveryId,
      keepDeleted: options.keepDeleted,
      paths: options.paths,
      maxWaitMs: options.maxWaitMs,
      userId,
      store: options.store,
      backoff: runner.backoff,
      limit: options.limit,
      expiredCursorStatuses: options.expiredCursorStatuses,
      timeoutMs: options.timeoutMs,
      dispatcher: options.dispatcher,
      signal: options.signal,
      telemetry: telemetry.enabled ? telemetry.under(caused[0], caused.slice(1)) : undefined,
    });
    await recordWebhookRun(options.store, ref, summary, firstReceipt?.atMs, options.now ?? Date.now);
    emit({ type: 'sync-done', userId, entity, run, summary });
  } catch (error) {
    const message = error instanceof LedgerhookError ? error.message : String(error);
    const policy = options.retry ?? {};
    if (isTransientFailure(error) && retry < (policy.max ?? 8) && !options.signal?.aborted) {
      const inMs = transientWait(retry + 1, policy);
      emit({ type: 'sync-retry', userId, entity, dataset: path, run, retry: retry + 1, inMs, error: message });
      runner.receipts.note(key, firstReceipt);
      runner.links.note(key, caused);
      again(retry + 1, inMs);
      return;
    }
    emit({
      type: 'sync-failed',
      userId,
      entity,
      dataset: path,
      run,
      error: error instanceof LedgerhookError ? error.message : String(error),
    });
  }
}

/** Each entity named once gets a sync; unknown ones are reported, bursts coalesce per dataset. */
function scheduleEntities(
  runner: SyncRunner,
  body: RawEntityUpdateBody,
  token: string,
  receipt: Receipt | undefined,
  span: TelemetrySpan | undefined,
): void {
  for (const name of new Set(body.entities)) {
    const entity = findEntity(name);
    if (!entity) {
      runner.emit({ type: 'unknown-entity', userId: body.userId, entity: name });
      continue;
    }
    const path = entityPath(entity, runner.options.paths);
    // The scheduler's key is the dataset's state key: one identity for key, directory and queue.
    const key = stateKey({
      userId: body.userId,
      tokenFingerprint: tokenFingerprint(token),
      baseUrl: runner.options.baseUrl,
      dataset: datasetKey(path),
    });
    const userId = body.userId;
    runner.receipts.note(key, receipt);
    if (span) runner.links.note(key, [span]);
    const schedule = (retry: number) =>
      runner.scheduler.request(key, () => runSync(runner, token, userId, name, path, later, retry, key));
    // A retry is a timer, then a request like any other (it coalesces with newer deliveries).
    const later = (retry: number, inMs: number) => runner.later(inMs, () => schedule(retry));
    const outcome = schedule(0);
    if (outcome === 'coalesced')
      runner.emit({ type: 'sync-coalesced', userId: body.userId, entity: name, dataset: path });
  }
}

function handleParsed(runner: SyncRunner, parsed: ParsedWebhookBody, receipt?: Receipt, span?: TelemetrySpan): void {
  if (!parsed.ok) {
    runner.emit({
      type: 'invalid-body',
      code: parsed.code === 'invalid_user' ? 'invalid_user' : 'invalid_body',
      reason: parsed.reason,
    });
    return;
  }
  const body = parsed.body;
  if (body.type === 'LIFECYCLE_EVENT') {
    runner.emit(lifecycleEvent(body));
    return;
  }
  const badUser = badUserReason(body.userId);
  if (badUser !== undefined) {
    runner.emit({ type: 'bad-user', userId: body.userId, error: badUser });
    return;
  }
  const token = runner.options.tokenFor(body.userId);
  if (!token) {
    runner.emit({ type: 'no-token', userId: body.userId, entities: body.entities });
    return;
  }
  scheduleEntities(runner, body, token, receipt, span);
}

/**
 * Spec section 1: on ENTITY_UPDATE, fetch fresh data through the list endpoints instead of polling.
 * Each named entity of the user gets an incremental sync; bursts coalesce per dataset.
 */
export function createWebhookSync(options: WebhookSyncOptions): {
  /** A delivery the listener accepted: its body was parsed once, by the listener. */
  handle(delivery: ReceivedDelivery): void;
  handleBody(body: Uint8Array): void;
  idle(): Promise<void>;
} {
  const scheduler = new SyncScheduler(options.concurrency ?? 4);
  let runs = 0;
  let pending = 0;
  const retryWaiters: Array<() => void> = [];
  const runner: SyncRunner = {
    // Overrides are checked once, here, so that a bad one fails at start-up and not on a delivery.
    options: { ...options, paths: checkEntityPaths(options.paths) },
    scheduler,
    backoff: new SharedBackoff(),
    emit: (event) => options.onEvent?.(event),
    nextRun: () => ++runs,
    receipts: new ReceiptWindows(),
    links: new RunLinks(),
    later: (ms, then) => {
      pending += 1;
      const timer = setTimeout(() => {
        pending -= 1;
        options.signal?.removeEventListener('abort', cancel);
        then();
        if (pending === 0) for (const wake of retryWaiters.splice(0)) wake();
      }, ms);
      const cancel = () => {
        clearTimeout(timer);
        pending -= 1;
        if (pending === 0) for (const wake of retryWaiters.splice(0)) wake();
      };
      options.signal?.addEventListener('abort', cancel, { once: true });
    },
  };
  if (options.reconcileEveryMs !== undefined)
    startReconcileTimer({
      ...runner.options,
      everyMs: options.reconcileEveryMs,
      scheduler,
      backoff: runner.backoff,
      emit: runner.emit,
    });
  return {
    handle: (delivery) =>
      handleParsed(
        runner,
        delivery.parsed,
        { atMs: delivery.receivedAtMs, deliveryId: delivery.id },
        options.telemetry?.enabled ? traceOf(delivery) : undefined,
      ),
    handleBody: (raw) => handleParsed(runner, parseWebhookBody(raw)),
    // Idle means no sync running, queued or waiting to be retried.
    idle: async () => {
      await scheduler.idle();
      while (pending > 0) {
        await new Promise<void>((resolve) => retryWaiters.push(resolve));
        await scheduler.idle();
      }
    },
  };
}
