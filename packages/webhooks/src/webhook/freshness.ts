import { fail, type Rule, type Verification } from './verify-rules.js';

// The time rules: spec 5.2 step 3 on iat, and RFC 7519's exp and nbf when a token carries them.

/** now - iat, in whole seconds (claimsRule has checked that iat is a number). */
export const ageOf = (v: Verification): number => v.nowSeconds - (v.claims.iat as number);

/**
 * Spec 5.2 step 3: expired when now - iat >= tolerance. The spec is silent on an iat in the
 * future, but a token issued further ahead than the tolerance would otherwise stay valid until
 * that day arrives (a pre-signed forgery that never expires): it is refused unless the caller
 * explicitly allows it, and then it is a warning.
 */
export const freshnessRule: Rule = (v) => {
  const age = ageOf(v);
  const tolerance = v.toleranceSeconds;
  if (v.ignoreExpiry) return { name: 'freshness', status: 'skip', detail: `not checked (age ${age}s)` };
  if (age >= tolerance)
    return fail(
      'freshness',
      `issued ${age}s ago; the tolerance is ${tolerance}s`,
      'expired',
      `the webhook expired: issued ${age}s ago, tolerance ${tolerance}s`,
    );
  if (-age <= tolerance) return undefined;
  const message = `iat is ${-age}s in the future, more than the tolerance of ${tolerance}s (a token that would not expire until then; or check this machine's clock)`;
  if (v.allowFutureIat) return { name: 'freshness', status: 'warn', detail: message };
  return fail('freshness', message, 'issued_in_future', `the webhook is issued in the future: ${message}`);
};

/** RFC 7519 exp, honoured when present: past it the token is expired (unless expiry is ignored). */
export const expiryRule: Rule = (v) => {
  const { exp } = v.claims;
  if (typeof exp !== 'number' || v.ignoreExpiry || v.nowSeconds < exp) return undefined;
  const iso = new Date(exp * 1000).toISOString();
  return fail('freshness', `exp ${iso} has passed`, 'expired', `the token expired at ${iso} (its exp claim)`);
};

/** RFC 7519 nbf, honoured when present: before it the token is not yet valid. */
export const notBeforeRule: Rule = (v) => {
  const { nbf } = v.claims;
  if (typeof nbf !== 'number' || v.nowSeconds >= nbf) return undefined;
  const iso = new Date(nbf * 1000).toISOString();
  return fail(
    'freshness',
    `nbf ${iso} is still ahead`,
    'issued_in_future',
    `the token is not valid before ${iso} (its nbf claim)`,
  );
};
