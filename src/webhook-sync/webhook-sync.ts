import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { findEntity } from '../catalogue/entities.js';
import { findEvent } from '../catalogue/events.js';
import type { CaptureRecord } from '../capture/capture-record.js';
import { LedgerhookError } from '../errors.js';
import { parseWebhookBody } from '../webhook/bodies.js';
import type { SyncStateStore } from '../sync/state-store.js';
import { syncDataset, type SyncSummary } from '../sync/sync-dataset.js';
import { SharedBackoff } from '../sync/retry-policy.js';
import { SyncScheduler } from './sync-scheduler.js';

export type WebhookSyncEvent =
  | { type: 'sync-start'; userId: string; entity: string; dataset: string; run: number }
  | { type: 'sync-done'; userId: string; entity: string; run: number; summary: SyncSummary }
  | { type: 'sync-failed'; userId: string; entity: string; dataset: string; run: number; error: string }
  | { type: 'sync-coalesced'; userId: string; entity: string; dataset: string }
  | { type: 'unknown-entity'; userId: string; entity: string }
  | { type: 'no-token'; userId: string; entities: string[] }
  | { type: 'lifecycle'; userId: string; event: string; message: string; known: boolean };

export interface WebhookSyncOptions {
  baseUrl: string;
  /** The access token for a user, or undefined when there is none (recorded, not fatal). */
  tokenFor: (userId: string) => string | undefined;
  /** Where a user's files go. */
  outDirFor: (userId: string) => string;
  store: SyncStateStore;
  limit?: number;
  /** Datasets synced at once across all users. */
  concurrency?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  onEvent?: (event: WebhookSyncEvent) => void;
}

/**
 * Spec section 1: on ENTITY_UPDATE, fetch fresh data through the list endpoints instead of polling.
 * Each named entity of the user gets an incremental sync; bursts coalesce per dataset.
 */
export function createWebhookSync(options: WebhookSyncOptions): { handle(record: CaptureRecord): void; handleBody(body: Uint8Array): void; idle(): Promise<void> } {
  const scheduler = new SyncScheduler(options.concurrency ?? 4);
  const backoff = new SharedBackoff();
  const emit = (event: WebhookSyncEvent) => options.onEvent?.(event);
  let runs = 0;

  const handleBody = (raw: Uint8Array) => {
    const parsed = parseWebhookBody(raw);
    if (!parsed.ok) return;
    const body = parsed.body;
    if (body.type === 'LIFECYCLE_EVENT') {
      const event = findEvent(body.event);
      emit({ type: 'lifecycle', userId: body.userId, event: body.event, known: Boolean(event), message: event?.suggestedUse ?? 'not in the catalogue (a custom event arranged with the API team?)' });
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
      const key = `${body.userId}\u0000${entity.path}`;
      const outcome = scheduler.request(key, async () => {
        const run = ++runs;
        emit({ type: 'sync-start', userId: body.userId, entity: name, dataset: entity.path, run });
        try {
          const summary = await syncDataset({
            baseUrl: options.baseUrl, token, path: entity.path, outDir: options.outDirFor(body.userId), store: options.store,
            scope: body.userId, backoff, ...(options.limit ? { limit: options.limit } : {}),
            ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}), ...(options.signal ? { signal: options.signal } : {}),
          });
          emit({ type: 'sync-done', userId: body.userId, entity: name, run, summary });
        } catch (error) {
          emit({ type: 'sync-failed', userId: body.userId, entity: name, dataset: entity.path, run, error: error instanceof LedgerhookError ? error.message : String(error) });
        }
      });
      if (outcome === 'coalesced') emit({ type: 'sync-coalesced', userId: body.userId, entity: name, dataset: entity.path });
    }
  };

  return {
    handle: (record) => handleBody(Buffer.from(record.body, 'base64')),
    handleBody,
    idle: () => scheduler.idle(),
  };
}

/** A user's own directory under the output directory, safe as a path segment. */
export function userDirectory(outDir: string, userId: string): string {
  return join(outDir, userId.replace(/[^A-Za-z0-9_.-]+/g, '_') || '_');
}
