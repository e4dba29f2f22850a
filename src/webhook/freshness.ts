import type { VerifyCheck, VerifyFailureCode } from './verify-result.js';

export interface FreshnessVerdict {
  check: VerifyCheck;
  /** Set when the check refuses the delivery. */
  failure?: { code: VerifyFailureCode; message: string } | undefined;
  /** Set when the check lets the delivery through with a remark. */
  warning?: string | undefined;
}

/**
 * Spec 5.2 step 3: expired when now - iat >= tolerance. The spec is silent on an iat in the
 * future, but a token issued further ahead than the tolerance would otherwise stay valid until
 * that day arrives (a pre-signed forgery that never expires): it is refused unless the caller
 * explicitly allows it, and then it is a warning.
 */
export function checkFreshness(options: {
  ageSeconds: number;
  toleranceSeconds: number;
  ignoreExpiry: boolean;
  allowFutureIat: boolean;
}): FreshnessVerdict {
  const { ageSeconds: age, toleranceSeconds: tolerance } = options;
  if (options.ignoreExpiry)
    return { check: { name: 'freshness', status: 'skip', detail: `not checked (age ${age}s)` } };
  if (age >= tolerance) {
    return {
      check: { name: 'freshness', status: 'fail', detail: `issued ${age}s ago; the tolerance is ${tolerance}s` },
      failure: { code: 'expired', message: `the webhook expired: issued ${age}s ago, tolerance ${tolerance}s` },
    };
  }
  if (-age > tolerance) {
    const message = `iat is ${-age}s in the future, more than the tolerance of ${tolerance}s (a token that would not expire until then; or check this machine's clock)`;
    if (options.allowFutureIat)
      return { check: { name: 'freshness', status: 'warn', detail: message }, warning: message };
    return {
      check: { name: 'freshness', status: 'fail', detail: message },
      failure: { code: 'issued_in_future', message: `the webhook is issued in the future: ${message}` },
    };
  }
  return { check: { name: 'freshness', status: 'pass', detail: `issued ${age}s ago; the tolerance is ${tolerance}s` } };
}
