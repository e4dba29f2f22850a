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
