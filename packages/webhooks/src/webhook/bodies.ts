import { findEntity } from '../catalogue/entities.js';
import { findEvent } from '../catalogue/events.js';
import { isObject } from '../util/is-object.js';

/**
 * An `ENTITY_UPDATE` body as sent: `userId`, `type` and every entity name as a string (a handler
 * gets `EntityUpdateBody`, with the known names typed and the rest in `unknownEntities`).
 */
export interface RawEntityUpdateBody {
  userId: string;
  type: 'ENTITY_UPDATE';
  entities: string[];
}

/** A `LIFECYCLE_EVENT` body as sent: `userId`, `type`, any `event` name and its `eventData`. */
export interface RawLifecycleEventBody {
  userId: string;
  type: 'LIFECYCLE_EVENT';
  event: string;
  eventData: Record<string, unknown>;
}

/** A parsed webhook body of either type, every name kept as sent. */
export type WebhookBodyObject = RawEntityUpdateBody | RawLifecycleEventBody;

/** What `parseWebhookBody` returns: the body with the names it does not know listed, or why it is not a webhook body. */
export type ParsedWebhookBody =
  | { ok: true; body: WebhookBodyObject; unknownEntities: string[]; unknownEvent: boolean }
  | {
      ok: false;
      reason: string;
      /**
       * Stable name of the problem: 'invalid_user' for a userId that is not a usable string,
       * 'unknown_type' for a type (a string) the spec does not show, else 'invalid_body'.
       */
      code?: 'invalid_user' | 'invalid_body' | 'unknown_type' | undefined;
      /** With 'unknown_type': the object as parsed (its userId checked), for a receiver's catch-all. */
      value?: Record<string, unknown> & { userId: string; type: string };
    };

/** With the u flag, a paired surrogate is one code point: only a lone half matches. */
export const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks that bytes are a webhook body of either type (spec 2.1/2.2) and parses them, without
 * verifying them. Entity and event names it does not know are reported, not refused: the service's
 * entity list grows and custom events can be arranged. The listener, the webhook-driven sync, the
 * queue and `Webhooks` all check bodies with it, so they never disagree on what a body is.
 */
export function parseWebhookBody(raw: Uint8Array | string): ParsedWebhookBody {
  let value: unknown;
  try {
    // Decoded in place: Buffer.from(a Uint8Array) would copy the bytes first.
    value = JSON.parse(
      typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'),
    );
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' };
  if (typeof value.userId !== 'string') {
    const kind =
      value.userId === undefined
        ? 'missing'
        : value.userId === null
          ? 'null'
          : Array.isArray(value.userId)
            ? 'an array'
            : `a ${typeof value.userId}`;
    return { ok: false, reason: `userId is ${kind}, not a string`, code: 'invalid_user' };
  }
  // A lone surrogate cannot be written as UTF-8: "\ud800" and "\udc00" would both become U+FFFD and
  // share one user's directory, state and jobs. Refused, never replaced.
  if (LONE_SURROGATE.test(value.userId))
    return { ok: false, reason: 'userId is not well-formed Unicode (a lone surrogate)', code: 'invalid_user' };
  if (value.type === 'ENTITY_UPDATE') {
    if (!Array.isArray(value.entities) || !value.entities.every((entity) => typeof entity === 'string')) {
      return { ok: false, reason: 'entities is missing or not an array of strings' };
    }
    const entities = value.entities as string[];
    return {
      ok: true,
      body: { userId: value.userId, type: 'ENTITY_UPDATE', entities },
      unknownEntities: entities.filter((name) => !findEntity(name)),
      unknownEvent: false,
    };
  }
  if (value.type === 'LIFECYCLE_EVENT') {
    if (typeof value.event !== 'string') return { ok: false, reason: 'event is missing or not a string' };
    if (!isObject(value.eventData)) return { ok: false, reason: 'eventData is missing or not an object' };
    return {
      ok: true,
      body: { userId: value.userId, type: 'LIFECYCLE_EVENT', event: value.event, eventData: value.eventData },
      unknownEntities: [],
      unknownEvent: !findEvent(value.event),
    };
  }
  const reason = `type is ${JSON.stringify(value.type)}; expected ENTITY_UPDATE or LIFECYCLE_EVENT`;
  if (typeof value.type === 'string')
    return { ok: false, reason, code: 'unknown_type', value: { ...value, userId: value.userId, type: value.type } };
  return { ok: false, reason };
}
