import type { Dispatcher } from 'undici';
import { findEntity } from '../catalogue/entities.js';
import { findEvent } from '../catalogue/events.js';
import { LedgerhookError } from '../errors.js';
import type { ReceivedDelivery } from '../listen/received-delivery.js';
import { parseWebhookBody, type ParsedWebhookBody } from '../webhook/bodies.js';
import type { DatasetStore } from '../store/dataset-store.js';
import { datasetKey, stateKey, tokenFingerprint, userDirName } from '../store/identity.js';
import { SharedBackoff } from '../sync/retry-policy.js';
import { type SyncSummary, syncDataset } from '../sync/sync-dataset.js';
import { SyncScheduler } from './sync-scheduler.js';

export type WebhookSyncEvent =
  | { type: 'sync-start'; userId: string; entity: string; dataset: string; run: number }
  | { type: 'sync-done'; userId: string; entity: string; run: number; summary: SyncSummary }
  | { type: 'sync-failed'; userId: string; entity: string; dataset: string; run: number; error: string }
  | { type: 'sync-coalesced'; userId: string; entity: string; dataset: string }
  | { type: 'unknown-entity'; userId: string; entity: string }
  | { type: 'no-token'; userId: string; entities: string[] }
  /** A userId that cannot name a user of its own ('', '.', '..', too long): nothing synced. */
  | { type: 'bad-user'; userId: string; error: string }
  | { type: 'lifecycle'; userId: string; event: string; message: string; known: boolean };

export interface WebhookSyncOptions {
  baseUrl: string;
  /** The access token for a user, or undefined when there is none (recorded, not fatal). */
  tokenFor: (userId: string) => string | undefined;
  /** Where each user's data and state go (a FileStore keeps each user in a directory of their own). */
  store: DatasetStore;
  limit?: number | undefined;
  /** Datasets synced at once across all users. */
  concurrency?: number | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  onEvent?: ((event: WebhookSyncEvent) => void) | undefined;
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
  const backoff = new SharedBackoff();
  const emit = (event: WebhookSyncEvent) => options.onEvent?.(event);
  let runs = 0;

  const handleParsed = (parsed: ParsedWebhookBody) => {
    if (!parsed.ok) return;
    const body = parsed.body;
    if (body.type === 'LIFECYCLE_EVENT') {
      const event = findEvent(body.event);
      emit({
        type: 'lifecycle',
        userId: body.userId,
        event: body.event,
        known: Boolean(event),
        message: event?.suggestedUse ?? 'not in the catalogue (a custom event arranged with the API team?)',
      });
      return;
    }
    try {
      userDirName(body.userId);
    } catch (error) {
      emit({ type: 'bad-user', userId: body.userId, error: (error as Error).message });
      return;
    }
    const token = options.tokenFor(body.userId);
    if (!token) {
      emit({ type: 'no-token', userId: body.userId, entities: body.entities });
      return;
    }
    for (const name of new Set(body.entities)) {
      const entity = findEntity(name);
      if (!entity) {
        emit({ type: 'unknown-entity', userId: body.userId, entity: name });
        continue;
      }
      // The scheduler's key is the dataset's state key: one identity for key, directory and queue.
      const key = stateKey({
        userId: body.userId,
        tokenFingerprint: tokenFingerprint(token),
        baseUrl: options.baseUrl,
        dataset: datasetKey(entity.path),
      });
      const outcome = scheduler.request(key, async () => {
        const run = ++runs;
        emit({ type: 'sync-start', userId: body.userId, entity: name, dataset: entity.path, run });
        try {
          const summary = await syncDataset({
            baseUrl: options.baseUrl,
            token,
            path: entity.path,
            userId: body.userId,
            store: options.store,
            backoff,
            limit: options.limit,
            timeoutMs: options.timeoutMs,
            dispatcher: options.dispatcher,
            signal: options.signal,
          });
          emit({ type: 'sync-done', userId: body.userId, entity: name, run, summary });
        } catch (error) {
          emit({
            type: 'sync-failed',
            userId: body.userId,
            entity: name,
            dataset: entity.path,
            run,
            error: error instanceof LedgerhookError ? error.message : String(error),
          });
        }
      });
      if (outcome === 'coalesced')
        emit({ type: 'sync-coalesced', userId: body.userId, entity: name, dataset: entity.path });
    }
  };

  return {
    handle: (delivery) => handleParsed(delivery.parsed),
    handleBody: (raw) => handleParsed(parseWebhookBody(raw)),
    idle: () => scheduler.idle(),
  };
}
