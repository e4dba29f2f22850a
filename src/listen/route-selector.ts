import { ENTITIES, findEntity } from '@ledgerhook/webhooks';
import { EVENTS, WEBHOOK_TYPES, type WebhookType } from '@ledgerhook/webhooks';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { usageError } from '../errors.js';

/**
 * Which deliveries a route (or `--events`) takes, checked against the catalogue when it is parsed:
 *   `*`                          every delivery
 *   `ENTITY_UPDATE`, `LIFECYCLE_EVENT`   every delivery of that type (spec 6.1)
 *   `INVOICE_PAID`, `INVOICE_*`  LIFECYCLE_EVENTs whose event matches (same as `LIFECYCLE_EVENT:INVOICE_*`)
 *   `ENTITY_UPDATE:expense`, `ENTITY_UPDATE:bank*`   ENTITY_UPDATEs naming a matching entity
 * Names are matched without regard to case (`-` reads as `_` in event names); `*` stands for any run
 * of characters. A name or pattern that matches nothing in the catalogue is refused with a suggestion:
 * a typo would otherwise route nothing, silently.
 */
export type RouteSelector =
  | { kind: 'all'; text: '*' }
  | { kind: 'type'; text: string; type: WebhookType }
  | { kind: 'event'; text: string; pattern: NamePattern }
  | { kind: 'entity'; text: string; pattern: NamePattern };

/** A name pattern with `*` for any run of characters, matched without regard to case. */
export interface NamePattern {
  test(name: string): boolean;
}

/** What a selector looks at in a delivery: the parsed body's type, event and entities. */
export interface DeliveryNames {
  type?: string | undefined;
  event?: string | undefined;
  entities?: readonly string[] | undefined;
}

/** Patterns are short: a few stars are all any selector needs. */
const MAX_STARS = 3;
/**
 * Names from the network longer than this match no event or entity pattern: every catalogue name is
 * far shorter, and a matcher's work stays bounded whatever a body holds.
 */
const MAX_NAME_LENGTH = 256;
const SHAPE = /^[A-Za-z0-9_*-]+$/;
/** `INVOICE_*`, `BANK_*`...: what a misspelt pattern is compared with. */
const EVENT_PREFIXES = [...new Set(EVENTS.map((event) => `${event.name.split('_')[0]}_*`))];
const normaliseEvent = (name: string) => name.trim().toUpperCase().replace(/-/g, '_');

/**
 * `*` globs matched by the two-pointer method (back to the last star on a mismatch), never by a
 * regular expression: a name comes from a delivery's body, and `.*` patterns backtrack
 * polynomially over a long name (seconds for `*_*_*D` against 2,000 underscores). Here the work is
 * at most the name's length times the pattern's, and names are bounded besides.
 */
function glob(pattern: string): NamePattern {
  const wanted = pattern.toUpperCase();
  return {
    test(name) {
      if (name.length > MAX_NAME_LENGTH) return false;
      const text = name.toUpperCase();
      let t = 0;
      let p = 0;
      let star = -1;
      let resume = 0;
      while (t < text.length) {
        if (p < wanted.length && wanted[p] !== '*' && wanted[p] === text[t]) {
          t += 1;
          p += 1;
        } else if (p < wanted.length && wanted[p] === '*') {
          star = p;
          resume = t;
          p += 1;
        } else if (star !== -1) {
          p = star + 1;
          resume += 1;
          t = resume;
        } else return false;
      }
      while (p < wanted.length && wanted[p] === '*') p += 1;
      return p === wanted.length;
    },
  };
}

function checkShape(input: string, part: string): void {
  if (!SHAPE.test(part))
    throw usageError(
      `selector "${input.slice(0, 80)}" may hold only letters, digits, _, - and *: e.g. INVOICE_*, ENTITY_UPDATE:expense`,
      'invalid_route',
    );
  if (part.split('*').length - 1 > MAX_STARS)
    throw usageError(`selector "${input.slice(0, 80)}" has more than ${MAX_STARS} *`, 'invalid_route');
}

function eventSelector(input: string, name: string): RouteSelector {
  checkShape(input, name);
  const text = normaliseEvent(name);
  const pattern = glob(text);
  if (EVENTS.some((event) => pattern.test(event.name))) return { kind: 'event', text, pattern };
  // An entity name where an event was expected is a common slip: say how to write it.
  const entity = findEntity(name) ?? ENTITIES.find((e) => e.name.toLowerCase() === name.toLowerCase());
  const hint = entity
    ? ` (for ENTITY_UPDATEs naming ${entity.name}, write ENTITY_UPDATE:${entity.name})`
    : didYouMean(text, [...WEBHOOK_TYPES, ...EVENTS.map((event) => event.name), ...EVENT_PREFIXES]);
  throw usageError(
    `selector "${input.slice(0, 80)}" matches no event in the catalogue${hint}; \`ledgerhook events\` lists them`,
    'unknown_event',
  );
}

function entitySelector(input: string, name: string): { kind: 'entity'; text: string; pattern: NamePattern } {
  checkShape(input, name);
  const lower = name.trim().toLowerCase();
  // A plain name may be written as the body has it, in another case, or as its plural (expenses).
  const named = ENTITIES.find((e) => [e.name.toLowerCase(), `${e.name.toLowerCase()}s`].includes(lower));
  if (named && !name.includes('*')) return { kind: 'entity', text: named.name, pattern: glob(named.name) };
  const pattern = glob(name.trim());
  if (ENTITIES.some((entity) => pattern.test(entity.name))) return { kind: 'entity', text: name.trim(), pattern };
  throw usageError(
    `selector "${input.slice(0, 80)}" matches no entity in the catalogue${didYouMean(
      name,
      ENTITIES.map((entity) => entity.name),
    )}; \`ledgerhook entities\` lists them`,
    'unknown_entity',
  );
}

/** Parses one selector (the part before `=` of `--forward-to`, an entry of `--events`). */
export function parseSelector(input: string): RouteSelector {
  const value = input.trim();
  if (value === '')
    throw usageError('a selector is empty: e.g. INVOICE_*, ENTITY_UPDATE:expense or *', 'invalid_route');
  if (value === '*') return { kind: 'all', text: '*' };
  const colon = value.indexOf(':');
  const head = normaliseEvent(colon === -1 ? value : value.slice(0, colon));
  const type = WEBHOOK_TYPES.find((known) => known === head);
  if (colon === -1) return type ? { kind: 'type', text: type, type } : eventSelector(input, value);
  const rest = value.slice(colon + 1);
  if (type === 'ENTITY_UPDATE') {
    const selector = entitySelector(input, rest);
    return { ...selector, text: `ENTITY_UPDATE:${selector.text}` };
  }
  if (type === 'LIFECYCLE_EVENT') return eventSelector(input, rest);
  throw usageError(
    `selector "${input.slice(0, 80)}": before ":" comes ENTITY_UPDATE or LIFECYCLE_EVENT${didYouMean(head, WEBHOOK_TYPES)}`,
    'invalid_route',
  );
}

/** `--events a,b`: a comma-separated list of selectors. */
export function parseSelectorList(input: string): RouteSelector[] {
  const parts = input.split(',').map((part) => part.trim());
  if (parts.every((part) => part === '')) throw usageError('the event list is empty', 'invalid_route');
  return parts.filter((part) => part !== '').map(parseSelector);
}

export function matchesSelector(selector: RouteSelector, names: DeliveryNames): boolean {
  switch (selector.kind) {
    case 'all':
      return true;
    case 'type':
      return names.type === selector.type;
    case 'event':
      return names.type === 'LIFECYCLE_EVENT' && names.event !== undefined && selector.pattern.test(names.event);
    case 'entity':
      return names.type === 'ENTITY_UPDATE' && (names.entities ?? []).some((entity) => selector.pattern.test(entity));
  }
}

/** True when any selector matches (an empty list matches nothing). */
export function matchesAny(selectors: readonly RouteSelector[], names: DeliveryNames): boolean {
  return selectors.some((selector) => matchesSelector(selector, names));
}
