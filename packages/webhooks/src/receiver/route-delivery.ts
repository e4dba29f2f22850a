import { isEntityName } from '../catalogue/entities.js';
import { isLifecycleEventName } from '../catalogue/events.js';
import { parseWebhookBody } from '../webhook/bodies.js';
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
 * Decides where an authentic body goes, after the one validator of spec 2.1/2.2 (webhook/bodies.ts).
 * Names outside the catalogue are never dropped: unknown entities ride along in `unknownEntities`,
 * unknown events go to LIFECYCLE_EVENT handlers, an unknown type to `onAny` only.
 */
export function routeDelivery(raw: Uint8Array | string): ParsedRoute {
  const parsed = parseWebhookBody(raw);
  if (!parsed.ok) {
    if (parsed.code === 'unknown_type' && parsed.value)
      return { ok: true, route: { body: parsed.value as RawWebhookBody, targets: [], hasUnknownNames: true } };
    return { ok: false, reason: parsed.reason };
  }
  const { body } = parsed;
  if (body.type === 'ENTITY_UPDATE') return { ok: true, route: routeEntityUpdate(body.userId, body.entities) };
  return { ok: true, route: routeLifecycleEvent(body) };
}
