/**
 * Splitting and decoding a compact JWS by hand. The spec (5.2) says: if the JWT library does not
 * decode the payload, Base64Url-decode it and parse it as JSON. We do this ourselves so that every
 * malformed shape gets its own plain-words reason instead of a library's generic error.
 */

/** Anything longer is not a webhook token; refusing early keeps hostile input cheap. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

export interface TokenParts {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signature: string;
}

export type ParsedToken = { ok: true; parts: TokenParts } | { ok: false; reason: string };

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Only canonical unpadded Base64url is accepted: decoding ignores the spare bits of the last
 * character, so without this check one signature has up to four spellings, and anything keyed on
 * the token (a dedupe key, a capture id) would be malleable. Re-encoding must give the input back.
 */
function nonCanonical(segment: string, name: string, decoded = Buffer.from(segment, 'base64url')): string | undefined {
  if (decoded.toString('base64url') === segment) return undefined;
  return `the ${name} is not canonical Base64Url (its last character carries non-zero spare bits, or its length is impossible); a token has exactly one spelling`;
}

export function decodeSegment(
  segment: string,
  name: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  if (!BASE64URL.test(segment)) {
    const hint = /[+/=]/.test(segment) ? ' (it contains + / or =, so it is standard Base64, not Base64Url)' : '';
    return { ok: false, reason: `the ${name} is not Base64Url${hint}` };
  }
  // Decoded once: the same bytes prove the spelling canonical and become the JSON text.
  const bytes = Buffer.from(segment, 'base64url');
  const notCanonical = nonCanonical(segment, name, bytes);
  if (notCanonical) return { ok: false, reason: notCanonical };
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `the ${name} does not decode to JSON` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: `the ${name} decodes to JSON that is not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export function parseToken(raw: string): ParsedToken {
  const token = raw.trim();
  if (token.length > MAX_TOKEN_LENGTH) {
    return {
      ok: false,
      reason: `the token is ${token.length} characters long; a webhook token is far shorter (limit ${MAX_TOKEN_LENGTH})`,
    };
  }
  if (/^bearer\s/i.test(token)) {
    return { ok: false, reason: 'the value starts with "Bearer "; the verification header carries the bare JWT' };
  }
  const segments = token.split('.');
  if (segments.length !== 3) {
    const what = segments.length === 5 ? ' (5 segments is an encrypted JWE, not a signed JWS)' : '';
    return {
      ok: false,
      reason: `the token has ${segments.length} segment${segments.length === 1 ? '' : 's'}; a JWT has 3 separated by dots${what}`,
    };
  }
  const [headerPart = '', payloadPart = '', signature = ''] = segments;
  const header = decodeSegment(headerPart, 'header');
  if (!header.ok) return header;
  const claims = decodeSegment(payloadPart, 'payload');
  if (!claims.ok) return claims;
  if (!BASE64URL.test(signature)) return { ok: false, reason: 'the signature is not Base64Url' };
  const signatureNotCanonical = nonCanonical(signature, 'signature');
  if (signatureNotCanonical) return { ok: false, reason: signatureNotCanonical };
  return { ok: true, parts: { header: header.value, claims: claims.value, signature } };
}
