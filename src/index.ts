/**
 * ledgerhook's headline API: one call per job. Each area has its own entry with the rest of what its
 * users need: `ledgerhook/listen` (local receiver, captures, replay, checking a receiver),
 * `ledgerhook/sync` (incremental sync, stores, reconcile, probe), `ledgerhook/mock` (the service
 * emulator, checking a consumer), `ledgerhook/scale` (Postgres, queue, workers) and
 * `ledgerhook/telemetry`. Receiving webhooks in a service is @ledgerhook/webhooks (also re-exported
 * as `ledgerhook/webhooks`).
 */
export {
  LedgerhookError,
  isLedgerhookError,
  type LedgerhookErrorCode,
  type LedgerhookErrorDetails,
  Webhooks,
  createWebMiddleware,
  signWebhook,
  verifyWebhook,
  verifyWebhookRequest,
  type WebhooksOptions,
  type SignWebhookOptions,
  type VerifyWebhookOptions,
  type VerifyResult,
} from '@ledgerhook/webhooks';
export { createNodeMiddleware } from '@ledgerhook/webhooks/node';
export { startListener, type ListenerOptions, type RunningListener } from './listen/listener.js';
export { syncDataset, type SyncDatasetOptions, type SyncSummary } from './sync/sync-dataset.js';
export { FileStore, type FileStoreOptions } from './store/file/file-store.js';
export type { DatasetStore } from './store/dataset-store.js';
export { createWebhookSync, type WebhookSyncOptions } from './webhook-sync/webhook-sync.js';
export { reconcileDataset, type ReconcileOptions, type ReconcileResult } from './sync/reconcile.js';
export { startMockServer, type MockServerOptions, type RunningMockServer } from './mock/mock-server.js';
