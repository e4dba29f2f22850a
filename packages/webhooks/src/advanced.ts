/**
 * @ledgerhook/webhooks/advanced: the building blocks below `verifyWebhook` and `signWebhook`, for
 * tools that sign custom claims, explain a refused delivery or check settings as the verifier will
 * (the ledgerhook CLI is one). A service that receives webhooks needs none of it.
 */
export { DIAGNOSE_MAX_BODY_BYTES } from './defaults.js';
export { signClaims, webhookClaims } from './webhook/sign.js';
export { bodySha256Hex, constantTimeEqual } from './webhook/body-hash.js';
export { bodyMismatchCause, firstDifferenceFromSigned, shortMismatchCause } from './webhook/diagnostics.js';
export { findHeader } from './webhook/request.js';
export { assertUsableSecrets, maskSecret, normaliseSecrets } from './webhook/secrets.js';
export { parseToken, type ParsedToken } from './webhook/token-parts.js';
export { toleranceProblem, validateTolerance } from './webhook/tolerance.js';
export { validateVerificationPrefix, withVerificationPrefix } from './webhook/verification-prefix.js';
export { didYouMean } from './catalogue/suggest.js';
export { SAMPLE_LIST_PATH } from './catalogue/entities.js';
