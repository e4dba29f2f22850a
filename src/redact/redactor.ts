/**
 * redact/: personal data replaced before it reaches a disk or a page (record, listen --capture
 * --redact, the inspector).
 *   redactor.ts        a keyed HMAC of each value, so that equal values stay equal (this file; the key
 *                      is the caller's)
 *   redact-rules.ts    what is personal: this API's default fields, `--redact` names and JSON paths,
 *                      e-mail addresses, IBANs and card numbers wherever they are; ids never
 *   redact-capture.ts  a capture line redacted: body and headers, the token dropped, the verdict kept
 */
import { createHmac } from 'node:crypto';
import { LedgerhookError } from '../errors.js';
import { isObject } from '../util/is-object.js';
import {
  fieldIsRedacted,
  isAccountNumber,
  isIdField,
  isPagingField,
  parseRedactRules,
  type RedactRule,
  replaceEmails,
  valueIsPersonal,
} from './redact-rules.js';

/** What every redacted value starts with, so that a reader (and a second pass) knows it for one. */
export const REDACTED_PREFIX = 'redacted:';
/** Deeper than this, a hostile document's rest is replaced whole rather than walked. */
const MAX_DEPTH = 200;
const MIN_KEY_BYTES = 16;

export interface RedactorOptions {
  /** The HMAC key (kept by the caller, e.g. in the config directory; never written beside what it redacts). */
  key: Uint8Array;
  /** `--redact` as given: field names and JSON paths, comma-separated or one per entry. */
  fields?: readonly string[] | undefined;
}

/**
 * Replaces personal data with a keyed hash of itself: equal values stay equal (so joins still work)
 * but cannot be read back without the key. Ids are kept; so are timestamps, numbers that no rule
 * names, and everything else that is not personal.
 */
export interface Redactor {
  /** Names the key (an HMAC of a constant, not the key): recordings made with one key can be joined. */
  readonly keyId: string;
  /** The user's rules as given (the defaults always apply too). */
  readonly fields: readonly string[];
  /** A JSON document with its personal values replaced, and how many were. Never changes its input. */
  json(value: unknown): { value: unknown; replaced: number };
  /** Free text (a header, a query, a body that is not JSON): e-mail addresses, IBANs and card numbers replaced. */
  text(value: string): string;
}

export function isRedactedValue(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(REDACTED_PREFIX);
}

export function createRedactor(options: RedactorOptions): Redactor {
  const key = Buffer.from(options.key);
  if (key.length < MIN_KEY_BYTES)
    throw new LedgerhookError('ERR_USAGE', `a redaction key needs at least ${MIN_KEY_BYTES} bytes`, {
      details: { reason: 'invalid_redact_rule' },
    });
  const fields = options.fields ?? [];
  const rules: RedactRule[] = parseRedactRules(fields);
  const hash = (value: string | number) =>
    REDACTED_PREFIX + createHmac('sha256', key).update(String(value)).digest('base64url').slice(0, 22);
  const keyId = createHmac('sha256', key).update('ledgerhook redaction key id').digest('hex').slice(0, 12);

  const json = (document: unknown) => {
    let replaced = 0;
    const replace = (value: string | number) => {
      replaced += 1;
      return hash(value);
    };
    /**
     * Everything beneath a redacted field: every string and number but ids, which are kept unless they
     * are personal by their shape (null and booleans say nothing).
     */
    const whole = (value: unknown, depth: number): unknown => {
      if (depth > MAX_DEPTH) return replace('too deep');
      if (typeof value === 'string') return value === '' || isRedactedValue(value) ? value : replace(value);
      if (typeof value === 'number') return replace(value);
      if (Array.isArray(value)) return value.map((entry) => whole(entry, depth + 1));
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(value))
        out[valueIsPersonal(name) ? replace(name) : name] = !isIdField(name)
          ? whole(entry, depth + 1)
          : typeof entry === 'string' && !isPagingField(name) && valueIsPersonal(entry)
            ? replace(entry)
            : entry;
      return out;
    };
    const at: Array<string | number> = [];
    /** The nearest field name above a value: an array's entries are judged by the field holding the array. */
    const fieldName = () => at.findLast((step) => typeof step === 'string');
    const walk = (value: unknown, depth: number): unknown => {
      if (depth > MAX_DEPTH) return replace('too deep');
      if (typeof value === 'string') {
        const name = fieldName();
        const kept = name !== undefined && isPagingField(name);
        return !kept && !isRedactedValue(value) && valueIsPersonal(value) ? replace(value) : value;
      }
      if (Array.isArray(value))
        return value.map((entry, index) => {
          at.push(index);
          const out = walk(entry, depth + 1);
          at.pop();
          return out;
        });
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(value)) {
        at.push(name);
        out[valueIsPersonal(name) ? replace(name) : name] = fieldIsRedacted(rules, at)
          ? whole(entry, depth + 1)
          : walk(entry, depth + 1);
        at.pop();
      }
      return out;
    };
    const value = walk(document, 0);
    return { value, replaced };
  };

  const text = (value: string) => {
    const trimmed = value.trim();
    if (!isRedactedValue(trimmed) && isAccountNumber(trimmed)) return hash(trimmed);
    return replaceEmails(value, hash);
  };

  return { keyId, fields, json, text };
}
