/**
 * ledgerhook's public API. The CLI (src/cli) is a thin layer over exactly these exports.
 */
export { LedgerhookError, HttpStatusError, isLedgerhookError, type LedgerhookErrorCode } from './errors.js';

export { signWebhook, webhookClaims, type SignWebhookOptions, type WebhookClaims } from './webhook/sign.js';
export {
  verifyWebhook,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type VerifyResult,
  type VerifySuccess,
  type VerifyFailure,
  type VerifyFailureCode,
  type VerifyCheck,
} from './webhook/verify.js';
export { verifyWebhookRequest, findHeader, DEFAULT_HEADER_NAME, type HeadersLike, type VerifyWebhookRequestOptions } from './webhook/request.js';
export { decodeWebhookToken } from './webhook/decode.js';
export type { TokenParts } from './webhook/token-parts.js';
export { bodySha256Base64, type WebhookBody } from './webhook/body-hash.js';
export { maskSecret, type SecretInput, type LabelledSecret } from './webhook/secrets.js';

export { SettingsStore, type SettingsStoreOptions } from './settings/settings-store.js';
export { ENVIRONMENTS, SETTING_KEYS, type EnvironmentName, type EnvironmentSettings, type SettingKey } from './settings/environments.js';

export { ENTITIES, SAMPLE_LIST_PATH, findEntity, type EntityDefinition } from './catalogue/entities.js';
export { EVENTS, WEBHOOK_TYPES, findEvent, type EventDefinition, type WebhookType } from './catalogue/events.js';
export { resolveEntityName, resolveEventName, resolveSampleType } from './catalogue/resolve.js';
export { parseWebhookBody, type EntityUpdateBody, type LifecycleEventBody, type WebhookBodyObject, type ParsedWebhookBody } from './webhook/bodies.js';
export { buildSampleBody, DEFAULT_USER_ID, DEFAULT_ENTITIES, type SampleBodyOptions } from './samples/sample-body.js';
export { resolveTarget } from './delivery/target.js';
export { buildDelivery, type BuildDeliveryOptions, type OutgoingDelivery } from './delivery/build-delivery.js';
export { postWebhook, DEFAULT_DELIVERY_TIMEOUT_MS, type PostWebhookOptions, type DeliveryResponse } from './delivery/post-webhook.js';
export { sendDeliveries, type SendDeliveriesOptions, type SendSummary, type DeliveryOutcome, type SendProgressEvent } from './delivery/send-deliveries.js';
export { checkReceiver, type CheckReceiverOptions, type CheckReceiverReport, type ReceiverCaseResult } from './delivery/check-receiver.js';
export { RECEIVER_CASE_TABLE } from './delivery/receiver-case-table.js';
export { startListener, DEFAULT_LISTEN_PORT, DEFAULT_MAX_BODY_BYTES, type ListenerOptions, type ListenerEvent, type ListenerStats, type RunningListener } from './listen/listener.js';
export { CaptureWriter } from './capture/capture-writer.js';
export { readCaptures, selectCaptures, type CaptureFile, type CaptureSelector } from './capture/read-captures.js';
export { captureBody, type CaptureRecord, type CaptureVerdict } from './capture/capture-record.js';
export { replayDeliveries, type ReplayOptions } from './replay/replay.js';
export { startMockServer, DEFAULT_MOCK_PORT, type MockServerOptions, type RunningMockServer } from './mock/mock-server.js';
export {
  MockService, MOCK_BASE_PATH, DEFAULT_MOCK_TOKEN, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE,
  type MockServiceOptions, type MockRequest, type MockResponse, type MockFaults, type MutationSpec, type MutationResult, type ListEnvelope,
} from './mock/mock-service.js';
export { webhooksForMutation, type MockWebhookEvent } from './mock/mock-webhooks.js';
export type { MockItem } from './mock/entity-generators.js';
export { paginate, listUrl, DEFAULT_LIMIT, type PaginateOptions, type PaginatedItem } from './sync/paginate.js';
export { syncDataset, type SyncDatasetOptions, type SyncSummary, type SyncProgressEvent } from './sync/sync-dataset.js';
export { syncDatasets, type SyncOutcome } from './sync/sync-many.js';
export { MemoryStateStore, datasetKey, type SyncStateStore, type SyncStateRecord } from './sync/state-store.js';
export { ConfStateStore } from './sync/conf-state-store.js';
export { readItems, type Item } from './sync/data-file.js';
export { datasetFileName } from './sync/dataset-file-name.js';
export { fetchJson, type FetchJsonOptions } from './sync/fetch-page.js';
export { DEFAULT_RETRY_POLICY, SharedBackoff, parseRetryAfter, type RetryPolicy } from './sync/retry-policy.js';
export type { ListPage } from './sync/envelope.js';
export { createWebhookSync, userDirectory, type WebhookSyncOptions, type WebhookSyncEvent } from './webhook-sync/webhook-sync.js';
export { SyncScheduler } from './webhook-sync/sync-scheduler.js';
export { runDemo, type DemoOptions, type DemoResult, type DemoEvent } from './demo/run-demo.js';
