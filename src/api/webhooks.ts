/**
 * `ledgerhook/webhooks`: receive, verify and sign the service's webhooks (spec 5.2) in your own code.
 * Drop-in handlers for node:http / Express / Fastify and for Web `Request` runtimes, typed events from
 * the catalogue, and the verification primitives they are built on.
 */
export * from '../receiver/index.js';
export {
  LedgerhookError,
  isLedgerhookError,
  type LedgerhookErrorCode,
  type LedgerhookErrorDetails,
} from '../errors.js';
export { signWebhook, type SignWebhookOptions, type WebhookClaims } from '../webhook/sign.js';
export {
  verifyWebhook,
  type VerifyWebhookOptions,
  type VerifyResult,
  type VerifySuccess,
  type VerifyFailure,
  type VerifyFailureCode,
  type VerifyCheck,
} from '../webhook/verify.js';
export { verifyWebhookRequest, type HeadersLike, type VerifyWebhookRequestOptions } from '../webhook/request.js';
export { decodeWebhookToken } from '../webhook/decode.js';
export type { TokenParts } from '../webhook/token-parts.js';
export { bodySha256Base64 } from '../webhook/body-hash.js';
export type { SecretInput, LabelledSecret } from '../webhook/secrets.js';
export { parseWebhookBody, type ParsedWebhookBody, type WebhookBodyObject } from '../webhook/bodies.js';
export { DEFAULT_HEADER_NAME, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
