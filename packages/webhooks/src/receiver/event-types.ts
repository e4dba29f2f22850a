import type { RawLifecycleEventBody, WebhookBodyObject } from '../webhook/bodies.js';
/**
 * The typed shapes a receiver's handlers see. Names come from the catalogue tables (one source of
 * truth); eventData is typed only where spec 2.2 shows it, everything else stays
 * Record<string, unknown> so that no field the spec does not show is ever promised.
 */
import type { EntityName } from '../catalogue/entities.js';
import type { LifecycleEventName } from '../catalogue/events.js';
import type { WebhookClaims } from '../webhook/sign.js';

export type { EntityName, LifecycleEventName };

/**
 * The `eventData` fields the service documents, by event name (spec 2.2); every other event's data
 * is untyped, so that no field the service does not promise is ever typed.
 */
export interface KnownEventData {
  /** "For TRANSACTION_PULL_COMPLETED it contains integrationName (string...)". */
  TRANSACTION_PULL_COMPLETED: { integrationName: string } & Record<string, unknown>;
  /**
   * "For EXPENSE_ADDED it contains what is needed to route the user to the exact transaction."
   * The spec names no field, so none is typed: read what your sandbox deliveries carry.
   */
  EXPENSE_ADDED: Record<string, unknown>;
}

/** The eventData type of a lifecycle event name. */
export type EventData<E extends string> = E extends keyof KnownEventData ? KnownEventData[E] : Record<string, unknown>;

/** An `ENTITY_UPDATE` body as its handler gets it: `userId`, the known `entities` typed, and any `unknownEntities`. */
export interface EntityUpdateBody {
  userId: string;
  type: 'ENTITY_UPDATE';
  /** The changed entities the catalogue knows (spec 4.2). */
  entities: EntityName[];
  /** Names outside the catalogue (the list has grown before); never dropped. Usually empty. */
  unknownEntities: string[];
}

/** The body of one known lifecycle event with its `eventData` typed: what a handler registered for that event name gets. */
export interface LifecycleEventBody<E extends LifecycleEventName = LifecycleEventName> {
  userId: string;
  type: 'LIFECYCLE_EVENT';
  event: E;
  eventData: EventData<E>;
}

/**
 * A lifecycle event whose name is not among the known ones, as sent: custom events can be arranged
 * with the service, so an unknown name is delivered rather than refused.
 */
export type UnknownLifecycleEventBody = RawLifecycleEventBody;

/** The body of any known lifecycle event, narrowed by its `event` name (what a `LIFECYCLE_EVENT` handler gets for a known event). */
export type AnyLifecycleEventBody = { [E in LifecycleEventName]: LifecycleEventBody<E> }[LifecycleEventName];

/** Every name `webhooks.on()` accepts. */
export type WebhookEventName = 'ENTITY_UPDATE' | 'LIFECYCLE_EVENT' | LifecycleEventName;

/** The body type each name given to `webhooks.on()` receives. `LIFECYCLE_EVENT` also receives unknown events. */
export type WebhookEventMap = {
  ENTITY_UPDATE: EntityUpdateBody;
  LIFECYCLE_EVENT: AnyLifecycleEventBody | UnknownLifecycleEventBody;
} & { [E in LifecycleEventName]: LifecycleEventBody<E> };

/** The body as the service sent it, parsed but not narrowed (unknown names included). */
export type RawWebhookBody =
  | WebhookBodyObject
  /** A type the spec does not list yet: only `onAny` handlers see it. */
  | { userId: string; type: string; [field: string]: unknown };

/** One authentic delivery, as `onAny` handlers and every handler's second argument see it. */
export interface WebhookDelivery {
  /** The parsed body, every name kept as sent. */
  body: RawWebhookBody;
  /** The raw bytes that were verified. */
  rawBody: Uint8Array;
  /** The verified token claims (iat, request_body_sha256). */
  claims: WebhookClaims;
  /** The label of the secret that verified it, when the secrets were labelled. */
  secretLabel?: string | undefined;
  /** True when a name in it is outside the catalogue (an unknown event, entity or type). */
  hasUnknownNames: boolean;
}
