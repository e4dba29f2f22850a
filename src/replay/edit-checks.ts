import { parseWebhookBody } from '@ledgerhook/webhooks';
import { jsonSyntaxError } from './json-syntax.js';
import { CONNECTION_HEADERS, headerValueProblem, isHeaderName } from '../util/header-name.js';

/**
 * The checks an edited delivery passes before it is signed and sent. Pure and free of Node APIs:
 * the inspector page runs the same functions while the person types (to show the exact problem),
 * and the server runs them again on what arrives (the page is never trusted).
 */
export type EditCheck<T> = { ok: true; value: T; notes: string[] } | { ok: false; problem: string };

/** How large an edited body may be, in UTF-8 bytes (the listener's own default body limit). */
export const DEFAULT_MAX_EDITED_BODY_BYTES = 1024 * 1024;

/** "line 3, column 14" for a JSON.parse position, counted in characters of the text. */
function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line}, column ${column}`;
}

/** The first syntax error, where it is (line and column) and what was expected there. */
function jsonProblem(text: string, error: unknown): string {
  const found = jsonSyntaxError(text);
  if (found === undefined) return `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  return `not JSON: ${found.problem} (${lineAndColumn(text, found.at)})`;
}

/**
 * An edited body: valid JSON of one of the spec's shapes (2.1 ENTITY_UPDATE, 2.2 LIFECYCLE_EVENT),
 * at most `maxBytes` UTF-8 bytes. Names outside the catalogue are notes, not problems (the spec's
 * entity list grows and custom events exist), as the listener treats them.
 */
export function checkEditedBody(text: string, maxBytes = DEFAULT_MAX_EDITED_BODY_BYTES): EditCheck<string> {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > maxBytes) return { ok: false, problem: `the body is ${bytes} bytes; at most ${maxBytes} are sent` };
  if (text.trim() === '') return { ok: false, problem: 'the body is empty' };
  try {
    JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: jsonProblem(text, error) };
  }
  const parsed = parseWebhookBody(text);
  if (!parsed.ok) return { ok: false, problem: `not a webhook body (spec 2.1/2.2): ${parsed.reason}` };
  const notes = [
    ...parsed.unknownEntities.map((name) => `entity "${name}" is not in the catalogue`),
    ...(parsed.unknownEvent && parsed.body.type === 'LIFECYCLE_EVENT'
      ? [`event "${parsed.body.event}" is not in the catalogue`]
      : []),
  ];
  return { ok: true, value: text, notes };
}

export const MAX_EDITED_HEADERS = 64;
const MAX_HEADER_VALUE_CHARS = 8 * 1024;

/** Names the delivery an edited one was made from (display only, as ledgerhook-replay-of is). */
export const EDITED_FROM_HEADER = 'ledgerhook-edited-from';

/**
 * Headers that are never taken from an edit: the connection's own (node sets them), and the markers
 * ledgerhook writes itself (replay.ts's REPLAY_OF_HEADER, spelt here so that the page's bundle does
 * not pull in the sender).
 */
export const UNEDITABLE_HEADERS: readonly string[] = [
  ...CONNECTION_HEADERS,
  'ledgerhook-replay-of',
  EDITED_FROM_HEADER,
];

/**
 * Edited headers: a JSON object of name → string. `verificationHeader` is refused by name, so that an
 * edited delivery can never carry a token of the person's making (it is always re-signed).
 */
export function checkEditedHeaders(value: unknown, verificationHeader: string): EditCheck<Record<string, string>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, problem: 'the headers must be a JSON object of name → text' };
  const entries = Object.entries(value);
  if (entries.length > MAX_EDITED_HEADERS)
    return { ok: false, problem: `${entries.length} headers; at most ${MAX_EDITED_HEADERS} are sent` };
  // A Map, not an object: a header named "constructor" or "__proto__" is a header like any other.
  const headers = new Map<string, string>();
  const reserved = new Set([...UNEDITABLE_HEADERS, verificationHeader.toLowerCase()]);
  for (const [name, text] of entries) {
    const lower = name.toLowerCase();
    if (!isHeaderName(name)) return { ok: false, problem: `header ${JSON.stringify(name)}: not a header name` };
    if (typeof text !== 'string')
      return { ok: false, problem: `header ${JSON.stringify(name)}: its value must be text in quotes` };
    if (text.length > MAX_HEADER_VALUE_CHARS)
      return { ok: false, problem: `header ${JSON.stringify(name)}: longer than ${MAX_HEADER_VALUE_CHARS} characters` };
    const problem = headerValueProblem(text);
    if (problem !== undefined) return { ok: false, problem: `header ${JSON.stringify(name)}: ${problem}` };
    if (reserved.has(lower))
      return {
        ok: false,
        problem:
          lower === verificationHeader.toLowerCase()
            ? `header ${JSON.stringify(name)}: the verification token is always made fresh by re-signing; remove it`
            : `header ${JSON.stringify(name)}: set by ledgerhook itself; remove it`,
      };
    if (headers.has(lower)) return { ok: false, problem: `header ${JSON.stringify(name)} is given twice` };
    headers.set(lower, text);
  }
  return { ok: true, value: Object.fromEntries(headers), notes: [] };
}
