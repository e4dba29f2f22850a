/**
 * samples/: the sample webhook bodies `sign`, `send-sample` and the mock start from (this file),
 * with `--set path=value` applied by set-path.ts.
 */
import type { ErrorReason } from '../error-reasons.js';
import { resolveEntityName, resolveEventName } from '../catalogue/resolve.js';
import type { WebhookType } from '@ledgerhook/webhooks';
import { LedgerhookError } from '../errors.js';
import type { WebhookBodyObject } from '@ledgerhook/webhooks';
import { setPath } from './set-path.js';

/** A stable fake user id, so that repeated samples land on the same user. */
export const DEFAULT_USER_ID = 'user_7f3c2a91';
/** What a typical ENTITY_UPDATE carries after a bank sync: new transactions and their categories. */
export const DEFAULT_ENTITIES: readonly string[] = ['expense', 'bankTransfer', 'revenue'];

export interface SampleBodyOptions {
  type: WebhookType;
  /** For LIFECYCLE_EVENT: the event name (any case). */
  event?: string | undefined;
  userId?: string | undefined;
  /** For ENTITY_UPDATE: names from the catalogue. */
  entities?: readonly string[] | undefined;
  /** For LIFECYCLE_EVENT: replaces the catalogue's sample eventData. */
  eventData?: Record<string, unknown> | undefined;
  /** `path=value` assignments applied last, e.g. `eventData.amount=10`. */
  set?: readonly string[] | undefined;
}

function sampleError(message: string, reason: ErrorReason): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', message, { details: { reason } });
}

/** Builds a realistic body of spec 2.1 or 2.2. */
export function buildSampleBody(options: SampleBodyOptions): WebhookBodyObject {
  const userId = options.userId ?? DEFAULT_USER_ID;
  let body: Record<string, unknown>;
  if (options.type === 'ENTITY_UPDATE') {
    if (options.event)
      throw sampleError('an event name goes with LIFECYCLE_EVENT, not ENTITY_UPDATE', 'event_without_lifecycle');
    const entities = (options.entities ?? DEFAULT_ENTITIES).map((name) => resolveEntityName(name).name);
    if (entities.length === 0) throw sampleError('an ENTITY_UPDATE names at least one entity', 'no_entities');
    body = { userId, type: 'ENTITY_UPDATE', entities };
  } else {
    if (!options.event) throw sampleError('a LIFECYCLE_EVENT needs an event name', 'missing_event');
    if (options.entities)
      throw sampleError('entity names go with ENTITY_UPDATE, not LIFECYCLE_EVENT', 'entities_without_entity_update');
    const event = resolveEventName(options.event);
    body = {
      userId,
      type: 'LIFECYCLE_EVENT',
      event: event.name,
      eventData: structuredClone(options.eventData ?? event.sampleEventData),
    };
  }
  for (const assignment of options.set ?? []) setPath(body, assignment);
  return body as unknown as WebhookBodyObject;
}
