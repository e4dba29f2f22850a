/**
 * ledgerhook's headline API. Each area has its own entry with everything in it:
 * `ledgerhook/webhooks` (receive, verify, sign), `ledgerhook/listen` (local receiver, captures,
 * replay), `ledgerhook/sync` (incremental sync and stores), `ledgerhook/mock` (service emulator) and
 * `ledgerhook/scale` (Postgres store, BullMQ queue and workers). The CLI (src/cli) is a thin layer
 * over these operations. Internals (schedulers, backoff, HTTP helpers) are not exported.
 */
export { LedgerhookError, isLedgerhookError, type LedgerhookErrorCode, type LedgerhookErrorDetails } from './errors.js';
export {
  Webhooks,
  createNodeMiddleware,
  createWebMiddleware,
  createWebHandler,
  memoryDedupe,
  signWebhook,
  verifyWebhook,
  verifyWebhookRequest,
  decodeWebhookToken,
  parseWebhookBody,
  ENTITY_NAMES,
  LIFECYCLE_EVENT_NAMES,
  type WebhooksOptions,
  type WebhookHandler,
  type NodeMiddlewareOptions,
  type WebHandlerOptions,
  type EntityName,
  type LifecycleEventName,
  type WebhookEventName,
  type WebhookDelivery,
  type SignWebhookOptions,
  type VerifyWebhookOptions,
  type VerifyWebhookRequestOptions,
  type VerifyResult,
  type VerifyFailureCode,
  type SecretInput,
} from './api/webhooks.js';
export {
  startListener,
  handleDelivery,
  readCaptures,
  replayDeliveries,
  checkReceiver,
  sendDeliveries,
  type ListenerOptions,
  type RunningListener,
  type ListenerEvent,
  type ReceivedDelivery,
  type CaptureRecord,
  type ReplayOptions,
  type CheckReceiverOptions,
  type CheckReceiverReport,
} from './api/listen.js';
export {
  syncDataset,
  syncDatasets,
  paginate,
  FileStore,
  createWebhookSync,
  reconcileDataset,
  type ReconcileResult,
  type SyncDatasetOptions,
  type SyncSummary,
  type SyncProgressEvent,
  type DatasetStore,
  type DatasetRef,
  type DatasetState,
} from './api/sync.js';
export { startMockServer, MockService, type MockServerOptions, type RunningMockServer } from './api/mock.js';
export { ENTITIES, findEntity, type EntityDefinition } from './catalogue/entities.js';
export { entityPath, checkEntityPaths, type EntityPaths } from './catalogue/entity-paths.js';
export { EVENTS, findEvent, type EventDefinition } from './catalogue/events.js';
export {
  noTelemetry,
  type Telemetry,
  type TelemetrySpan,
  type TelemetryAttributes,
} from './telemetry/telemetry.js';
