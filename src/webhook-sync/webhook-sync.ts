/**
 * webhook-sync/: verified ENTITY_UPDATEs → coalesced incremental syncs (this file).
 *   sync-scheduler.ts        at most one run and one follow-up per dataset
 *   sync-runner.ts           one dataset's run as the scheduler runs it (reported, never thrown)
 *   webhook-sync-options.ts  what createWebhookSync takes and the events it reports
 *   run-activity.ts          a run's time from its first delivery to the commit
 *   reconcile-timer.ts       listen --sync's reconcile schedule; freshness.ts: the report
 */
import { findEntity } from '@ledgerhook/webhooks';
import { entityPath } from '../catalogue/entity-paths.js';
import type { ReceivedDelivery } from '../delivery/received-delivery.js';
import { type RawEntityUpdateBody, parseWebhookBody, type ParsedWebhookBody } from '@ledgerhook/webhooks';
import { datasetKey, stateKey, tokenFingerprint } from '../store/identity.js';
import { SharedBackoff } from '../http/retry-policy.js';
import { SyncScheduler } from './sync-scheduler.js';
import { badUserReason, lifecycleEvent } from './body-events.js';
import { startReconcileTimer } from './reconcile-timer.js';
import { type Receipt, ReceiptWindows } from './run-activity.js';
import { type TelemetrySpan, traceOf } from '../telemetry/telemetry.js';
import { RunLinks } from '../telemetry/run-links.js';
import { runSync, type SyncRunner } from './sync-runner.js';
import { normalizeWebhookSyncOptions, type WebhookSyncOptions } from './webhook-sync-options.js';

export type { WebhookSyncEvent, WebhookSyncOptions } from './webhook-sync-options.js';

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
 * On ENTITY_UPDATE, fetch fresh data through the list endpoints instead of polling (spec 1.1).
 * Each named entity of the user gets an incremental sync; bursts coalesce per dataset.
 */
export function createWebhookSync(input: WebhookSyncOptions): {
  /** A delivery the listener accepted: its body was parsed once, by the listener. */
  handle(delivery: ReceivedDelivery): void;
  handleBody(body: Uint8Array): void;
  idle(): Promise<void>;
} {
  const options = normalizeWebhookSyncOptions(input);
  const scheduler = new SyncScheduler(options.limits.concurrency);
  let runs = 0;
  let pending = 0;
  const retryWaiters: Array<() => void> = [];
  const runner: SyncRunner = {
    options,
    scheduler,
    backoff: new SharedBackoff(),
    emit: options.onEvent,
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
      ...options,
      limit: options.read.limit,
      maxStampAheadMs: options.read.maxStampAheadMs,
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
        options.telemetry.enabled ? traceOf(delivery) : undefined,
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
