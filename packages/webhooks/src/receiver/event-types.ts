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

/** Spec 2.2: the eventData fields the spec names; every other event's data is untyped. */
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

/** Spec 2.1, as an ENTITY_UPDATE handler sees it. */
export interface EntityUpdateBody {
  userId: string;
  type: 'ENTITY_UPDATE';
  /** The changed entities the catalogue knows (spec 4.2). */
  entities: EntityName[];
  /** Names outside the catalogue (the list has grown before); never dropped. Usually empty. */
  unknownEntities: string[];
}

/** Spec 2.2 for one known event name, with its eventData narrowed. */
export interface LifecycleEventBody<E extends LifecycleEventName = LifecycleEventName> {
  userId: string;
  type: 'LIFECYCLE_EVENT';
  event: E;
  eventData: EventData<E>;
}

/** A lifecycle event the catalogue does not know (spec 6.2: "others can be arranged"): spec 2.2 as sent. */
export type UnknownLifecycleEventBody = RawLifecycleEventBody;

/** What a `LIFECYCLE_EVENT` handler sees: any known event, narrowed by `event`, or an unknown one. */
export type AnyLifecycleEventBody = { [E in LifecycleEventName]: LifecycleEventBody<E> }[LifecycleEventName];

/** Every name `webhooks.on()` accepts. */
export type WebhookEventName = 'ENTITY_UPDATE' | 'LIFECYCLE_EVENT' | LifecycleEventName;

/** The payload of each name. `LIFECYCLE_EVENT` also receives events outside the catalogue. */
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
