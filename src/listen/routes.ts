import { resolveTarget } from '../delivery/target.js';
import { LedgerhookError, usageError } from '../errors.js';
import { isObject } from '../util/is-object.js';
import type { ParsedWebhookBody } from '@ledgerhook/webhooks';
import { matchesAny, parseSelector, type DeliveryNames, type RouteSelector } from './route-selector.js';

/**
 * Where accepted deliveries go. A route with selectors takes every delivery one of them matches; a
 * route without (the catch-all) takes the deliveries no selector route took (`*` takes all). A
 * delivery goes to every route that takes it.
 */
export interface Route {
  /** Shown on listen's line, in the capture's attempts and the inspector: `INVOICE_*`, a file's name, or `default`. */
  name: string;
  /** Empty: the catch-all. */
  selectors: readonly RouteSelector[];
  url: URL;
}

export interface Routing {
  routes: readonly Route[];
  /** Only deliveries matching one of these are forwarded (and printed); undefined: all. */
  events?: readonly RouteSelector[] | undefined;
}

/** A selector is letters, digits, `_ - * :`: so `A=B` splits there, while a URL's own `=` (a query) never has that shape before it. */
const SELECTOR_PREFIX = /^([A-Za-z0-9_*:-]+)=(.*)$/s;

/** `--forward-to TARGET` or `--forward-to SELECTOR=TARGET` (the target as `resolveTarget` reads it: :3001, a URL...). */
export function parseRouteFlag(input: string): Route {
  const match = SELECTOR_PREFIX.exec(input.trim());
  if (!match) return { name: 'default', selectors: [], url: resolveTarget(input) };
  const [, selectorText = '', target = ''] = match;
  const selector = parseSelector(selectorText);
  if (target.trim() === '')
    throw usageError(`route "${input.slice(0, 100)}" names no target after "="`, 'invalid_route');
  return { name: selector.text, selectors: [selector], url: resolveTarget(target) };
}

/** Two routes with one name would mix their attempts: later ones get `#2`, `#3`. */
export function uniqueNames(routes: readonly Route[]): Route[] {
  const seen = new Map<string, number>();
  return routes.map((route) => {
    const count = (seen.get(route.name) ?? 0) + 1;
    seen.set(route.name, count);
    return count === 1 ? route : { ...route, name: `${route.name}#${count}` };
  });
}

const ENTRY_KEYS = new Set(['name', 'match', 'to']);
const MAX_ROUTES = 256;

function fileError(label: string, where: string, message: string, cause?: unknown): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', `${label}: ${where}${message}`, {
    details: { reason: 'invalid_routes_file', file: label },
    cause,
  });
}

function routeEntry(entry: unknown, at: string, label: string): Route {
  if (!isObject(entry)) throw fileError(label, at, ' is not an object like {"match": "INVOICE_*", "to": ":3000"}');
  const unknown = Object.keys(entry).find((key) => !ENTRY_KEYS.has(key));
  if (unknown !== undefined)
    throw fileError(label, at, ` has an unknown key "${unknown.slice(0, 40)}" (allowed: name, match, to)`);
  const { name, match, to } = entry;
  if (typeof to !== 'string') throw fileError(label, at, '.to is missing or not a string (e.g. ":3000")');
  if (name !== undefined && (typeof name !== 'string' || !/^[\w.:*#-]{1,64}$/.test(name)))
    throw fileError(label, at, '.name is not a short name (letters, digits, _ . : * # -, at most 64)');
  const texts = match === undefined ? [] : Array.isArray(match) ? match : [match];
  if (!texts.every((text): text is string => typeof text === 'string'))
    throw fileError(label, at, '.match is not a selector or a list of selectors');
  try {
    const selectors = texts.map(parseSelector);
    const url = resolveTarget(to);
    return { name: name ?? (selectors.map((s) => s.text).join('|') || 'default'), selectors, url };
  } catch (error) {
    if (error instanceof LedgerhookError) throw fileError(label, `${at}: `, error.message, error);
    throw error;
  }
}

/**
 * A routes file's content (already JSON-parsed): `{"routes": [{"name"?, "match"?, "to"}]}` or the bare
 * array. Every error names the file and the entry (`routes.json: routes[2].match: ...`).
 */
export function parseRoutesConfig(value: unknown, label: string): Route[] {
  const list = Array.isArray(value) ? value : isObject(value) ? value.routes : undefined;
  if (!Array.isArray(list))
    throw fileError(label, '', 'expected {"routes": [{"match": "INVOICE_*", "to": ":3000"}, ...]} or that array');
  if (list.length === 0) throw fileError(label, '', 'routes is empty');
  if (list.length > MAX_ROUTES) throw fileError(label, '', `more than ${MAX_ROUTES} routes`);
  return list.map((entry, index) => routeEntry(entry, `routes[${index}]`, label));
}

/** What selectors read from a delivery: only a parsed (webhook-shaped) body has names; the rest only meets catch-alls. */
export function deliveryNames(parsed: ParsedWebhookBody): DeliveryNames {
  if (!parsed.ok) return {};
  const { body } = parsed;
  return body.type === 'LIFECYCLE_EVENT'
    ? { type: body.type, event: body.event }
    : { type: body.type, entities: body.entities };
}

/** The routes a delivery goes to: those whose selectors match, else the catch-alls; none when --events leaves it out. */
export function routesFor<R extends Route>(
  routing: { routes: readonly R[]; events?: Routing['events'] },
  names: DeliveryNames,
): R[] {
  if (routing.events && !matchesAny(routing.events, names)) return [];
  const selected = routing.routes.filter((route) => route.selectors.length > 0 && matchesAny(route.selectors, names));
  const specific = selected.some((route) => !route.selectors.some((selector) => selector.kind === 'all'));
  if (specific) return selected;
  return [...selected, ...routing.routes.filter((route) => route.selectors.length === 0)];
}
