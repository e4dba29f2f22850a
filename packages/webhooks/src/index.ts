/**
 * @ledgerhook/webhooks: receive, verify and sign the bookkeeping service's webhooks in your own
 * service. `Webhooks` with typed events and a drop-in handler for Web `Request` runtimes (Node's
 * adapter is `@ledgerhook/webhooks/node`), the verification and signing they are built on, the
 * catalogue of entities and events, and the one error type. Runtime dependency: jose.
 *
 * Entries: this file (`.`), node.ts (`./node`), advanced.ts (`./advanced`). Folders: webhook/
 * (signing and verification, spec 5), receiver/ (Webhooks, the Web and node:http handlers,
 * dedupe), node/ (the node:http body reader, its budget, the JSON answer), catalogue/ (entities
 * and events as data), util/.
 */
export {
  LedgerhookError,
  isLedgerhookError,
  type LedgerhookErrorCode,
  type LedgerhookErrorDetails,
} from './errors.js';
export { DEFAULT_HEADER_NAME, DEFAULT_MAX_BODY_BYTES, DEFAULT_TOLERANCE_SECONDS } from './defaults.js';
export { Webhooks, type WebhooksOptions, type WebhookHandler, type ReceiverLog } from './receiver/webhooks.js';
export { createWebMiddleware, type WebHandlerOptions, type WebHandlerInput } from './receiver/web-handler.js';
export {
  memoryDedupe,
  DEFAULT_DEDUPE_TTL_SECONDS,
  DEFAULT_DEDUPE_MAX_ENTRIES,
  type DedupeStore,
  type MemoryDedupeOptions,
} from './receiver/dedupe.js';
export { WebhookHandlerError, type WebhookErrorReason } from './receiver/handler-error.js';
export type { ReceiverAnswer } from './receiver/answer.js';
export type {
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
} from './receiver/event-types.js';
export { signWebhook, type SignWebhookOptions, type WebhookClaims } from './webhook/sign.js';
export {
  verifyWebhook,
  type VerifyWebhookOptions,
  type VerifyResult,
  type VerifySuccess,
  type VerifyFailure,
  type VerifyFailureCode,
  type VerifyCheck,
  type CheckName,
  type CheckStatus,
} from './webhook/verify.js';
export { verifyWebhookRequest, type HeadersLike, type VerifyWebhookRequestOptions } from './webhook/request.js';
export { decodeWebhookToken } from './webhook/decode.js';
export type { TokenParts } from './webhook/token-parts.js';
export { bodySha256Base64, type WebhookBody } from './webhook/body-hash.js';
export type { SecretInput, LabelledSecret } from './webhook/secrets.js';
export {
  parseWebhookBody,
  type ParsedWebhookBody,
  type WebhookBodyObject,
  type RawEntityUpdateBody,
  type RawLifecycleEventBody,
} from './webhook/bodies.js';
export {
  ENTITIES,
  ENTITY_NAMES,
  findEntity,
  isEntityName,
  type EntityDefinition,
  type EntityName,
} from './catalogue/entities.js';
export {
  EVENTS,
  LIFECYCLE_EVENT_NAMES,
  WEBHOOK_TYPES,
  findEvent,
  isLifecycleEventName,
  type EventDefinition,
  type LifecycleEventName,
  type WebhookType,
} from './catalogue/events.js';
