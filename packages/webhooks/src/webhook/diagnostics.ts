import { DIAGNOSE_MAX_BODY_BYTES } from '../defaults.js';
import { bodyLength, bodySha256Base64, bodySha256Hex, type WebhookBody, bodyBytes } from './body-hash.js';
import { verifiesWith } from './hs256.js';
import { describeSecret, type LabelledSecret } from './secrets.js';

/**
 * Why a body's hash may differ from request_body_sha256: the mistakes receivers make most.
 * Every re-serialisation is combined with every trailing-newline change; the first candidate
 * whose hash equals the claim is reported.
 */
const SERIALISATIONS: ReadonlyArray<{ describe: string; make: (text: string) => string | undefined }> = [
  { describe: '', make: (text) => text },
  {
    describe: 're-serialised compactly (JSON.stringify(JSON.parse(body)))',
    make: (text) => reserialise(text, undefined),
  },
  { describe: 'pretty-printed with 2 spaces (JSON.stringify(value, null, 2))', make: (text) => reserialise(text, 2) },
  { describe: 'pretty-printed with 4 spaces', make: (text) => reserialise(text, 4) },
  { describe: 'pretty-printed with tabs', make: (text) => reserialise(text, '\t') },
];

const NEWLINE_CHANGES: ReadonlyArray<{ describe: string; make: (text: string) => string | undefined }> = [
  { describe: '', make: (text) => text },
  {
    describe: 'a trailing newline removed',
    make: (text) => (/\r?\n$/.test(text) ? text.replace(/\r?\n$/, '') : undefined),
  },
  { describe: 'a trailing newline added', make: (text) => (text.endsWith('\n') ? undefined : `${text}\n`) },
];

function reserialise(text: string, indent: number | string | undefined): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, indent);
  } catch {
    return undefined;
  }
}

/** What the signed body looked like, relative to the body we were given, if we can tell. */
function findSignedVariant(text: string, claim: string): { describe: string; signed: string } | undefined {
  for (const serialisation of SERIALISATIONS) {
    const serialised = serialisation.make(text);
    if (serialised === undefined) continue;
    for (const newline of NEWLINE_CHANGES) {
      if (!serialisation.describe && !newline.describe) continue;
      const candidate = newline.make(serialised);
      if (candidate === undefined || candidate === text) continue;
      if (bodySha256Base64(candidate) === claim) {
        return {
          describe: [serialisation.describe, newline.describe].filter(Boolean).join(' and with '),
          signed: candidate,
        };
      }
    }
  }
  if (text !== '' && bodySha256Base64('') === claim)
    return { describe: 'empty (was the body read before signing?)', signed: '' };
  return undefined;
}

/**
 * Where a re-serialised body first differs from the bytes that were signed (which its claim lets us
 * rebuild): the character offset in the received text, and the signed text from there. Undefined
 * when no known re-serialisation explains the claim, or the body is too large to try.
 */
export function firstDifferenceFromSigned(
  body: WebhookBody,
  claim: string,
): { at: number; signedFromThere: string } | undefined {
  if (bodyLength(body) > DIAGNOSE_MAX_BODY_BYTES) return undefined;
  const text = Buffer.from(bodyBytes(body)).toString('utf8');
  const variant = findSignedVariant(text, claim);
  if (!variant) return undefined;
  let at = 0;
  while (at < text.length && at < variant.signed.length && text[at] === variant.signed[at]) at += 1;
  return { at, signedFromThere: variant.signed.slice(at, at + 40) };
}

/** Plain-words reasons for a body_mismatch. */
export function explainBodyMismatch(body: WebhookBody, claim: string): string[] {
  const hints: string[] = [];
  if (claim === bodySha256Hex(body)) {
    hints.push('request_body_sha256 is the hex digest of this body; the spec says Base64 of the SHA-256 digest');
  }
  if (claim === Buffer.from(bodySha256Hex(body), 'hex').toString('base64url')) {
    hints.push('request_body_sha256 is Base64Url without padding; the spec says standard Base64');
  }
  const variant = findSignedVariant(Buffer.from(bodyBytes(body)).toString('utf8'), claim);
  if (variant) {
    hints.push(
      `request_body_sha256 matches this body ${variant.describe}: the bytes you verify are not the bytes that were signed (a framework that parses and re-serialises JSON, or a file saved with a different final newline); verify the raw request bytes`,
    );
  }
  if (hints.length === 0 && !/^[A-Za-z0-9+/]{43}=$/.test(claim)) {
    hints.push(
      `request_body_sha256 does not look like Base64 of a SHA-256 digest (44 characters ending in =); it is ${claim.length} characters`,
    );
  }
  return hints;
}

/** A body_mismatch's message: the cause when the hints know it (hex digest, re-serialised), never a guess. */
export function bodyMismatchHeadline(hints: readonly string[]): string {
  const [cause] = hints;
  if (cause?.startsWith('request_body_sha256 is the hex digest'))
    return 'the body does not match request_body_sha256: the claim is a hex digest, not Base64';
  if (cause?.includes('re-serialised'))
    return 'the body does not match request_body_sha256: these are not the bytes that were signed (re-serialised)';
  return 'the body does not match request_body_sha256: it was changed after signing';
}

/** Plain-words reasons for a bad_signature: whitespace around a secret, or the other environment's secret. */
export function explainBadSignature(
  token: string,
  secrets: readonly LabelledSecret[],
  otherSecrets: readonly LabelledSecret[],
): string[] {
  const hints: string[] = [];
  for (const [index, entry] of secrets.entries()) {
    const trimmed = entry.secret.trim();
    if (trimmed !== entry.secret && verifiesWith(token, trimmed)) {
      hints.push(
        `${describeSecret(entry, index)} has surrounding whitespace (a newline from a file or a copy-paste?); the token verifies with it trimmed`,
      );
    }
  }
  for (const [index, entry] of otherSecrets.entries()) {
    if (verifiesWith(token, entry.secret) || verifiesWith(token, entry.secret.trim())) {
      hints.push(
        `the token verifies with ${describeSecret(entry, index)}: the delivery comes from the other environment, or the secrets are swapped`,
      );
    }
  }
  if (hints.length === 0) {
    hints.push('the token was signed with a different secret; sandbox and production have separate webhook secrets');
  }
  return hints;
}

/**
 * The cause of a body mismatch in a word or two, for a list: `hex digest`, `Base64Url`,
 * `re-serialised`, `empty body signed` or `changed`; undefined when unknown. Worth the work only
 * after the signature verified (the caller's check), and tried only on a small body.
 */
export function shortMismatchCause(body: WebhookBody, claim: string): string | undefined {
  const cause = bodyMismatchCause(body, claim);
  if (cause === undefined) return undefined;
  if (cause.includes('hex digest')) return 'hex digest';
  if (cause.includes('Base64Url')) return 'Base64Url';
  if (cause.includes('matches this body')) return cause.includes('empty') ? 'empty body signed' : 're-serialised';
  return 'changed';
}

/**
 * Why a body does not match its `request_body_sha256` claim, in one sentence (a hex digest,
 * Base64Url, re-serialised JSON, a changed final newline); undefined when no cause is found or the
 * body is larger than `DIAGNOSE_MAX_BODY_BYTES` (the search re-serialises it several times).
 */
export function bodyMismatchCause(body: WebhookBody, claim: string): string | undefined {
  if (bodyLength(body) > DIAGNOSE_MAX_BODY_BYTES) return undefined;
  const [first] = explainBodyMismatch(body, claim);
  return first;
}
