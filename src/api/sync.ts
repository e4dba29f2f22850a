/**
 * `ledgerhook/sync`: incremental, page-by-page sync of any dataset into a store, the store seam and
 * the JSON file store, syncs driven by webhooks, proof that nothing was missed (reconcile, freshness,
 * history), and learning what the service does where the interface leaves it open (probe). The
 * Postgres store and queue workers are `ledgerhook/scale`, so that this entry never loads pg or bullmq.
 */
export {
  syncDataset,
  datasetRef,
  type SyncDatasetOptions,
  type SyncSummary,
  type SyncProgressEvent,
} from '../sync/sync-dataset.js';
export { syncDatasets, type SyncOutcome } from '../sync/sync-many.js';
export type { StampBehind } from '../sync/server-stamp.js';
export type { SchemaDrift } from '../sync/schema-drift.js';
export type { SchemaContract } from '../sync/schema-contract.js';
export type { DatasetSchema } from '../store/dataset-schema.js';
export { entityPath, checkEntityPaths, type EntityPaths } from '../catalogue/entity-paths.js';
export { paginate, type PaginateOptions, type PaginatedItem } from '../sync/paginate.js';
export type { ListPage } from '../dataset/envelope.js';
export type { Item } from '../store/file/data-file.js';
export type { ItemId } from '../dataset/item-id.js';
export type { RetryPolicy } from '../http/retry-policy.js';
export type {
  DatasetRef,
  DatasetState,
  DatasetStore,
  ChangeSet,
  CommitResult,
  FullLoad,
  StoredItem,
} from '../store/dataset-store.js';
export { FileStore, type FileStoreOptions } from '../store/file/file-store.js';
export { createWebhookSync, type WebhookSyncOptions, type WebhookSyncEvent } from '../webhook-sync/webhook-sync.js';
export {
  reconcileDataset,
  type ReconcileOptions,
  type ReconcileResult,
  type ReconcileProgressEvent,
} from '../sync/reconcile.js';
export { freshnessReport, type FreshnessRow, type FreshnessOptions } from '../webhook-sync/freshness.js';
export type { DatasetActivity, ReconcileRecord } from '../store/dataset-activity.js';
export type { HistoryEntry, RemovalReason, ChangeCause, ChangeOrigin } from '../store/dataset-history.js';
export { probeService } from '../probe/probe.js';
export type { ProbeOptions } from '../probe/probe-options.js';
export type {
  ProbeReport,
  ProbeFinding,
  ProbeQuirk,
  ProbeArea,
  ImpliedSetting,
  ProbeFacts,
} from '../probe/probe-types.js';
export { settingsToWrite } from '../probe/setting-fit.js';
