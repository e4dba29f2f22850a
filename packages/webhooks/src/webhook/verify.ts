import { LedgerhookError } from '../errors.js';
import { normaliseSecrets } from './secrets.js';
import { validateTolerance } from './tolerance.js';
import { validateVerificationPrefix } from './verification-prefix.js';
import type { VerifyResult } from './verify-result.js';
import { expiryRule, freshnessRule, notBeforeRule } from './freshness.js';
import {
  algorithmRule,
  claimsRule,
  headerRule,
  integrityRule,
  payloadRule,
  refuses,
  type Rule,
  signatureRule,
  tokenRead,
  tokenSpelling,
  type Verification,
} from './verify-rules.js';
import { accepted, explain, heldChecks } from './verify-verdict.js';
import type { VerifyWebhookOptions } from './verify-options.js';

export type {
  CheckName,
  CheckStatus,
  VerifyCheck,
  VerifyFailure,
  VerifyFailureCode,
  VerifyResult,
  VerifySuccess,
} from './verify-result.js';
export type { VerifyWebhookOptions } from './verify-options.js';

/**
 * The accepted path: every rule, cheapest first, stopping at the first that refuses. Nothing is
 * decoded before the signature verified but the characters of the segments, so a forgery costs one
 * HMAC per secret; each segment is decoded once, the key object is cached, and nothing awaits.
 */
const CHEAPEST_FIRST: readonly Rule[] = [
  tokenRead,
  tokenSpelling,
  signatureRule,
  headerRule,
  algorithmRule,
  payloadRule,
  claimsRule,
  freshnessRule,
  expiryRule,
  notBeforeRule,
  integrityRule,
];

/**
 * Verifies a webhook delivery as spec 5.2 describes: HS256 only, freshness (now - iat >= tolerance
 * is expired; an iat further ahead than the tolerance is refused too) and the body hash compared
 * in constant time. Never throws for a bad delivery: the result says what failed, and every check
 * is reported so that a person sees the whole picture. Throws LedgerhookError(ERR_USAGE) only for
 * unusable options (no secret, bad tolerance).
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifyResult> {
  const verification = verificationOf(options);
  const diagnose = options.diagnose !== false;
  for (const rule of CHEAPEST_FIRST)
    if (refuses(rule(verification))) return explain(verification, { otherSecrets: options.otherSecrets, diagnose });
  return accepted(verification, diagnose ? heldChecks(verification) : []);
}

/** The options checked and normalised once, and nothing found out yet. */
function verificationOf(options: VerifyWebhookOptions): Verification {
  const secrets = normaliseSecrets(options.secrets);
  if (secrets.length === 0 || secrets.every((entry) => entry.secret.length === 0))
    throw new LedgerhookError('ERR_USAGE', 'no webhook secret to verify with', {
      details: { reason: 'missing_webhook_secret' },
    });
  const toleranceSeconds = validateTolerance(options.toleranceSeconds);
  if (options.verificationPrefix !== undefined) validateVerificationPrefix(options.verificationPrefix);
  return {
    raw: options.token,
    prefix: options.verificationPrefix,
    body: options.body,
    secrets,
    toleranceSeconds,
    nowSeconds: Math.floor((options.now ?? Date.now)() / 1000),
    ignoreExpiry: options.ignoreExpiry === true,
    allowFutureIat: options.allowFutureIat === true,
    token: '',
    segments: ['', '', ''],
    header: {},
    claims: {},
    secretIndex: undefined,
    bodySha256: undefined,
  };
}
