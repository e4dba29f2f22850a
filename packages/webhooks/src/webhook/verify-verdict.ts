import { DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { bodyLength } from './body-hash.js';
import { bodyMismatchHeadline, explainBadSignature, explainBodyMismatch } from './diagnostics.js';
import type { WebhookClaims } from './sign.js';
import { ageOf, expiryRule, freshnessRule, notBeforeRule } from './freshness.js';
import { describeSecret, normaliseSecrets, type SecretInput } from './secrets.js';
import {
  algorithmRule,
  claimsRule,
  type Finding,
  integrityRule,
  type Refusal,
  refuses,
  signatureRule,
  tokenRead,
  tokenShape,
  type Verification,
} from './verify-rules.js';
import type { CheckName, VerifyCheck, VerifyFailure, VerifyResult, VerifySuccess } from './verify-result.js';

/*
 * The verdict's detail, built only for a refused delivery or a caller who wants the whole picture:
 * the rules the accepted path runs (verify-rules.ts), here in the verdict's order and each recorded.
 * The first refusal decides the code; everything wrong is listed at once.
 */

/** What each check says when its rules hold. */
const HELD: Record<CheckName, (v: Verification) => string> = {
  token: () => 'a JWT with a JSON header and JSON claims',
  algorithm: () => 'HS256',
  signature: (v) => {
    const index = v.secretIndex ?? -1;
    const matched = v.secrets[index];
    return matched ? `verified with ${describeSecret(matched, index)}` : '';
  },
  claims: () => 'iat and request_body_sha256 present',
  freshness: (v) => `issued ${ageOf(v)}s ago; the tolerance is ${v.toleranceSeconds}s`,
  integrity: () => 'request_body_sha256 matches the body',
};

const CHECK_ORDER: readonly CheckName[] = ['token', 'algorithm', 'signature', 'claims', 'freshness', 'integrity'];

const lineOf = ({ name, status, detail }: Finding): VerifyCheck => ({ name, status, detail });
const held = (name: CheckName, v: Verification): VerifyCheck => ({ name, status: 'pass', detail: HELD[name](v) });

/** The checks of an accepted delivery: every rule held, freshness perhaps with a remark (warn, skip). */
export function heldChecks(v: Verification): VerifyCheck[] {
  const freshness = freshnessRule(v);
  return CHECK_ORDER.map((name) => (name === 'freshness' && freshness ? lineOf(freshness) : held(name, v)));
}

/** The result of a delivery every rule accepted. */
export function accepted(v: Verification, checks: VerifyCheck[]): VerifySuccess {
  const freshness = freshnessRule(v);
  const secretIndex = v.secretIndex ?? -1;
  return {
    ok: true,
    claims: v.claims as WebhookClaims,
    header: v.header,
    secretIndex,
    secretLabel: v.secrets[secretIndex]?.label,
    ageSeconds: ageOf(v),
    warnings: freshness?.status === 'warn' ? [freshness.detail] : [],
    checks,
    bodySha256: v.bodySha256,
  };
}

export interface ExplainOptions {
  /** Secrets that may explain a bad signature (never accept it), loaded only when one fails. */
  otherSecrets?: readonly SecretInput[] | (() => Promise<readonly SecretInput[]>) | undefined;
  /** VerifyWebhookOptions.diagnose: explain a body_mismatch, and check a forged body's integrity. */
  diagnose: boolean;
}

/** Every rule in the verdict's order, each recorded. */
export async function explain(v: Verification, options: ExplainOptions): Promise<VerifyResult> {
  const checks: VerifyCheck[] = [];
  const warnings: string[] = [];
  const refusal = (finding: Refusal, extra: Partial<VerifyFailure>): VerifyFailure => ({
    ok: false,
    code: finding.code,
    message: finding.message,
    hints: [],
    warnings,
    checks,
    ...extra,
  });

  // The token read and decoded, no crit, HS256: a failure here ends it (nothing later means anything).
  const token = tokenRead(v) ?? tokenShape(v);
  if (refuses(token)) {
    checks.push(lineOf(token));
    return refusal(token, token.prefixSeen === undefined ? {} : { prefixSeen: token.prefixSeen });
  }
  checks.push(held('token', v));
  const decoded = { header: v.header, claims: v.claims };
  const algorithm = algorithmRule(v);
  if (refuses(algorithm)) {
    checks.push(lineOf(algorithm));
    return refusal(algorithm, decoded);
  }
  checks.push(held('algorithm', v));

  // From here every rule is recorded, trusted or not, so that a person sees all that is wrong at once.
  let first: VerifyFailure | undefined;
  const record = (name: CheckName, finding: Finding | undefined, hints: string[] = []) => {
    checks.push(finding ? lineOf(finding) : held(name, v));
    if (finding?.status === 'warn') warnings.push(finding.detail);
    if (refuses(finding)) first ??= refusal(finding, { ...decoded, hints });
  };
  const signature = signatureRule(v);
  const signatureVerified = signature === undefined;
  record('signature', signature, signature ? explainBadSignature(v.token, v.secrets, await others(options)) : []);
  const claims = claimsRule(v);
  record('claims', claims);
  if (refuses(claims)) return { ...(first ?? refusal(claims, decoded)), signatureVerified };

  record('freshness', freshnessRule(v));
  for (const rule of [expiryRule, notBeforeRule]) {
    const finding = rule(v);
    if (finding) record('freshness', finding);
  }
  if (signatureVerified || options.diagnose) {
    const integrity = integrityRule(v);
    // A body_mismatch is explained only once the signature verified: a forgery's body is never re-serialised.
    const explained =
      refuses(integrity) && options.diagnose && signatureVerified && bodyLength(v.body) <= DIAGNOSE_MAX_BODY_BYTES;
    const hints = explained ? explainBodyMismatch(v.body, v.claims.request_body_sha256 as string) : [];
    record('integrity', explained ? { ...integrity, message: bodyMismatchHeadline(hints) } : integrity, hints);
  } else {
    // On the answer path a forged delivery costs its HMACs and nothing more: its body is not hashed.
    checks.push({ name: 'integrity', status: 'skip', detail: 'not checked: the signature does not verify' });
  }
  if (first === undefined) return accepted(v, checks);
  return { ...first, ageSeconds: ageOf(v), bodySha256: v.bodySha256, signatureVerified };
}

async function others({ otherSecrets }: ExplainOptions) {
  return normaliseSecrets(typeof otherSecrets === 'function' ? await otherSecrets() : otherSecrets);
}
