import { isEntityName } from '../catalogue/entities.js';
import { isLifecycleEventName } from '../catalogue/events.js';
import { isObject } from '../util/is-object.js';
import type { EntityUpdateBody, RawWebhookBody, UnknownLifecycleEventBody, WebhookEventName } from './event-types.js';

/** Which handlers an authentic body goes to, and with what payload. `onAny` always gets it too. */
export interface Route {
  body: RawWebhookBody;
  /** Handler names to call, each with its payload. */
  targets: Array<{ name: WebhookEventName; payload: unknown }>;
  hasUnknownNames: boolean;
}

export type ParsedRoute = { ok: true; route: Route } | { ok: false; reason: string };

/**
 * Spec 2.2 shows integrationName for TRANSACTION_PULL_COMPLETED; the type promises a string, so a
 * delivery without one is not handed to a handler typed for it (it still reaches LIFECYCLE_EVENT).
 */
function matchesKnownShape(event: string, eventData: Record<string, unknown>): boolean {
  if (event === 'TRANSACTION_PULL_COMPLETED') return typeof eventData.integrationName === 'string';
  return true;
}

function routeEntityUpdate(userId: string, entities: string[]): Route {
  const known = entities.filter(isEntityName);
  const unknownEntities = entities.filter((name) => !isEntityName(name));
  const payload: EntityUpdateBody = { userId, type: 'ENTITY_UPDATE', entities: known, unknownEntities };
  return {
    body: { userId, type: 'ENTITY_UPDATE', entities },
    targets: [{ name: 'ENTITY_UPDATE', payload }],
    hasUnknownNames: unknownEntities.length > 0,
  };
}

function routeLifecycleEvent(body: UnknownLifecycleEventBody): Route {
  const targets: Route['targets'] = [];
  if (isLifecycleEventName(body.event) && matchesKnownShape(body.event, body.eventData))
    targets.push({ name: body.event, payload: body });
  targets.push({ name: 'LIFECYCLE_EVENT', payload: body });
  return { body, targets, hasUnknownNames: !isLifecycleEventName(body.event) };
}

/**
 * Parses an authentic body (spec 2.1/2.2) and decides where it goes. Names outside the catalogue
 * are never dropped: unknown entities ride along in `unknownEntities`, unknown events go to
 * LIFECYCLE_EVENT handlers, an unknown type to `onAny` only.
 */
export function routeDelivery(raw: Uint8Array | string): ParsedRoute {
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString());
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' };
  const { userId, type } = value;
  if (typeof userId !== 'string') return { ok: false, reason: 'userId is missing or not a string' };
  if (typeof type !== 'string') return { ok: false, reason: 'type is missing or not a string' };
  if (type === 'ENTITY_UPDATE') {
    const entities = value.entities;
    if (!Array.isArray(entities) || !entities.every((name) => typeof name === 'string'))
      return { ok: false, reason: 'entities is missing or not an array of strings' };
    return { ok: true, route: routeEntityUpdate(userId, entities as string[]) };
  }
  if (type === 'LIFECYCLE_EVENT') {
    const { event, eventData } = value;
    if (typeof event !== 'string') return { ok: false, reason: 'event is missing or not a string' };
    if (!isObject(eventData)) return { ok: false, reason: 'eventData is missing or not an object' };
    return { ok: true, route: routeLifecycleEvent({ userId, type, event, eventData }) };
  }
  return { ok: true, route: { body: { ...value, userId, type }, targets: [], hasUnknownNames: true } };
}
