import { LedgerhookError } from '../errors.js';

/**
 * Spec 5.2 carries the bare JWT in the verification header. A real service (or a gateway in front of
 * it) may put a scheme before it ("Bearer eyJ..."): the verificationPrefix setting, off by default,
 * names that prefix. With it set, the prefix is required and removed before the token is read;
 * without it, a prefixed value is refused and the refusal names the prefix that was seen.
 */
export const MAX_VERIFICATION_PREFIX_LENGTH = 32;

/**
 * Checks a verification prefix and returns it, or throws ERR_USAGE: printable ASCII (it travels in
 * a header), not blank, and at most 32 characters. A bare scheme name ("Bearer", as a shell hands it
 * over without its quotes' trailing space) gets its space.
 */
export function validateVerificationPrefix(prefix: string): string {
  if (prefix.trim() === '' || prefix.length > MAX_VERIFICATION_PREFIX_LENGTH || !/^[\x20-\x7e]+$/.test(prefix))
    throw new LedgerhookError(
      'ERR_USAGE',
      `the verification prefix must be 1 to ${MAX_VERIFICATION_PREFIX_LENGTH} printable ASCII characters, e.g. "Bearer ", got ${JSON.stringify(prefix.slice(0, 40))}`,
      { details: { reason: 'invalid_verification_prefix' } },
    );
  return /[A-Za-z0-9]$/.test(prefix) ? `${prefix} ` : prefix;
}

/** The header value the service would send for this token. */
export function withVerificationPrefix(token: string, prefix: string | undefined): string {
  return prefix ? `${prefix}${token}` : token;
}

export type PrefixOutcome =
  | { ok: true; token: string }
  | { ok: false; detail: string; message: string /** A scheme seen where none is configured. */; seen?: string };

/**
 * Takes the configured prefix off a header value (compared without regard to case, as HTTP
 * authentication schemes are). Without a configured prefix, a value shaped `Scheme <jwt>` is refused
 * and said as such.
 */
export function removeVerificationPrefix(raw: string, prefix: string | undefined): PrefixOutcome {
  // The spec's case, on every delivery: a bare JWT has no blank in it, so nothing to look for.
  if (!prefix && !raw.includes(' ') && !raw.includes('\t')) return { ok: true, token: raw };
  const value = raw.trim();
  if (prefix) {
    const wanted = prefix.trimStart();
    if (value.slice(0, wanted.length).toLowerCase() === wanted.toLowerCase())
      return { ok: true, token: value.slice(wanted.length).trim() };
    return {
      ok: false,
      detail: `the header value does not start with the configured prefix ${JSON.stringify(prefix)}`,
      message: `malformed token: the header value does not start with the configured verification prefix ${JSON.stringify(prefix)}; the value starts ${JSON.stringify(value.slice(0, 12))}`,
    };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9_-]{0,30})[ \t]+(?=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.)/.exec(value);
  if (!scheme) return { ok: true, token: value };
  const seen = `${scheme[1]} `;
  return {
    ok: false,
    detail: `the header value starts with ${JSON.stringify(seen)}`,
    seen,
    message: `malformed token: the header value starts with ${JSON.stringify(seen)}, and spec 5.2 carries the bare JWT; if the service really sends that prefix, set the verificationPrefix setting to ${JSON.stringify(seen)}`,
  };
}
