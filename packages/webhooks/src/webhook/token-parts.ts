/**
 * The token's shape (RFC 7515 compact serialisation), one rule per function: the verification runs
 * them cheapest first on the accepted path and in this file's order (`parseToken`) to explain a
 * refusal. The spec (5.2) says: if the JWT library does not decode the payload, Base64Url-decode it
 * and parse it as JSON. We do this ourselves so that every malformed shape gets its own plain-words
 * reason instead of a library's generic error.
 */

/** Anything longer is not a webhook token; refusing early keeps hostile input cheap. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** A token's decoded header, claims and signature, not verified (what `decodeWebhookToken` returns). */
export interface TokenParts {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signature: string;
}

/** What `parseToken` returns: the token's decoded parts, or the first shape rule it breaks. */
export type ParsedToken = { ok: true; parts: TokenParts } | { ok: false; reason: string };

/** The three segments of a compact JWS, as received. */
export type Segments = readonly [header: string, payload: string, signature: string];

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The value of one Base64url character (the caller has checked the alphabet). */
function sextet(code: number): number {
  if (code === 95) return 63; // '_' (95 sits between the capitals and the small letters)
  if (code >= 97) return code - 71; // a-z: 26..51
  if (code >= 65) return code - 65; // A-Z: 0..25
  if (code >= 48) return code + 4; // 0-9: 52..61
  return 62; // '-'
}

/**
 * Only canonical unpadded Base64url is accepted: decoding ignores the spare bits of the last
 * character, so without this rule one signature has up to four spellings, and anything keyed on the
 * token (a dedupe key, a capture id) would be malleable. A segment is canonical when its length is one
 * Base64 can produce and the spare low bits of its last character are zero: exactly when re-encoding
 * its bytes gives it back, proven here on the characters without decoding them.
 */
function canonicalLength(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const spare = rest === 2 ? 15 : 3;
  return (sextet(segment.charCodeAt(segment.length - 1)) & spare) === 0;
}

/** Why a segment is not canonical unpadded Base64url, or undefined when it is. */
export function spellingProblem(segment: string, name: string): string | undefined {
  if (!BASE64URL.test(segment)) {
    const hint = /[+/=]/.test(segment) ? ' (it contains + / or =, so it is standard Base64, not Base64Url)' : '';
    return `the ${name} is not Base64Url${hint}`;
  }
  if (canonicalLength(segment)) return undefined;
  return `the ${name} is not canonical Base64Url (its last character carries non-zero spare bits, or its length is impossible); a token has exactly one spelling`;
}

/** A segment already known to be canonical, decoded once and parsed as a JSON object; or why not. */
export function segmentObject(
  segment: string,
  name: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: `the ${name} does not decode to JSON` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: `the ${name} decodes to JSON that is not an object` };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The token without surrounding blanks, cut into its three segments; or why it cannot be. */
export function splitToken(
  raw: string,
): { ok: true; token: string; segments: Segments } | { ok: false; reason: string } {
  const token = raw.trim();
  if (token.length > MAX_TOKEN_LENGTH)
    return {
      ok: false,
      reason: `the token is ${token.length} characters long; a webhook token is far shorter (limit ${MAX_TOKEN_LENGTH})`,
    };
  if (/^bearer\s/i.test(token))
    return { ok: false, reason: 'the value starts with "Bearer "; the verification header carries the bare JWT' };
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.includes('.', second + 1)) {
    const count = token.split('.').length;
    const what = count === 5 ? ' (5 segments is an encrypted JWE, not a signed JWS)' : '';
    return {
      ok: false,
      reason: `the token has ${count} segment${count === 1 ? '' : 's'}; a JWT has 3 separated by dots${what}`,
    };
  }
  return {
    ok: true,
    token,
    segments: [token.slice(0, first), token.slice(first + 1, second), token.slice(second + 1)],
  };
}

/** A header or payload segment: spelled canonically, then a JSON object. */
function decodeSegment(segment: string, name: string): ReturnType<typeof segmentObject> {
  const problem = spellingProblem(segment, name);
  return problem ? { ok: false, reason: problem } : segmentObject(segment, name);
}

/** The shape rules of decoded segments, in the order a refusal names the first that fails. */
export function parseSegments([headerSegment, payloadSegment, signature]: Segments): ParsedToken {
  const header = decodeSegment(headerSegment, 'header');
  if (!header.ok) return header;
  const claims = decodeSegment(payloadSegment, 'payload');
  if (!claims.ok) return claims;
  const problem = spellingProblem(signature, 'signature');
  if (problem) return { ok: false, reason: problem };
  return { ok: true, parts: { header: header.value, claims: claims.value, signature } };
}

/**
 * Checks a token's shape (three canonical Base64Url segments, a JSON header and payload) and decodes
 * it without verifying it, or says the first rule it breaks: every rule, in the order a refusal
 * names them, so that a malformed token is explained in plain words.
 */
export function parseToken(raw: string): ParsedToken {
  const split = splitToken(raw);
  return split.ok ? parseSegments(split.segments) : split;
}
