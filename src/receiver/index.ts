/**
 * `ledgerhook/webhooks`: receiving webhooks in your own service (typed events, drop-in handlers).
 * Also re-exported from the package root.
 */
export { Webhooks, type WebhooksOptions, type WebhookHandler, type ReceiverLog } from './webhooks.js';
export {
  createNodeMiddleware,
  type NodeMiddleware,
  type NodeMiddlewareOptions,
} from './node-middleware.js';
export {
  createWebMiddleware,
  createWebHandler,
  type WebHandlerOptions,
  type WebHandlerInput,
} from './web-handler.js';
export {
  memoryDedupe,
  dedupeKey,
  DEFAULT_DEDUPE_TTL_SECONDS,
  DEFAULT_DEDUPE_MAX_ENTRIES,
  type DedupeStore,
  type MemoryDedupeOptions,
} from './dedupe.js';
export { WebhookHandlerError, type WebhookErrorReason } from './handler-error.js';
export type { ReceiverAnswer } from './answer.js';
export type {
  EntityName,
  LifecycleEventName,
  KnownEventData,
  EventData,
  EntityUpdateBody,
  LifecycleEventBody,
  UnknownLifecycleEventBody,
  AnyLifecycleEventBody,
  WebhookEventName,
  WebhookEventMap,
  RawWebhookBody,
  WebhookDelivery,
} from './event-types.js';
export { ENTITY_NAMES, isEntityName } from '../catalogue/entities.js';
export { LIFECYCLE_EVENT_NAMES, isLifecycleEventName } from '../catalogue/events.js';
