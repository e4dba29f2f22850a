import { usageError } from '../errors.js';
import { ENTITIES, findEntity, type EntityDefinition } from '@ledgerhook/webhooks';
import { EVENTS, findEvent, WEBHOOK_TYPES, type EventDefinition, type WebhookType } from '@ledgerhook/webhooks';
import { didYouMean } from '@ledgerhook/webhooks/advanced';

/** Event names are matched case-insensitively (INVOICE_VIEWED, invoice_viewed, invoice-viewed). */
export function resolveEventName(input: string): EventDefinition {
  const key = input.trim().toUpperCase().replace(/-/g, '_');
  const event = findEvent(key);
  if (!event)
    throw usageError(
      `unknown event "${input}"${didYouMean(
        input,
        EVENTS.map((e) => e.name),
      )}; \`ledgerhook events\` lists them`,
      'unknown_event',
    );
  return event;
}

/** Entity names are case-sensitive in bodies, but we accept any case and plurals on the command line. */
export function resolveEntityName(input: string): EntityDefinition {
  const trimmed = input.trim();
  const exact = findEntity(trimmed);
  if (exact) return exact;
  const lower = trimmed.toLowerCase();
  const loose = ENTITIES.find(
    (entity) =>
      entity.name.toLowerCase() === lower ||
      entity.path.slice(1).toLowerCase() === lower ||
      `${entity.name.toLowerCase()}s` === lower,
  );
  if (loose) return loose;
  throw usageError(
    `unknown entity "${input}"${didYouMean(
      trimmed,
      ENTITIES.map((e) => e.name),
    )}; \`ledgerhook entities\` lists them`,
    'unknown_entity',
  );
}

/** A send-sample TYPE: ENTITY_UPDATE, LIFECYCLE_EVENT, or an event name standing for LIFECYCLE_EVENT. */
export function resolveSampleType(input: string): { type: WebhookType; event?: EventDefinition } {
  const key = input.trim().toUpperCase().replace(/-/g, '_');
  if ((WEBHOOK_TYPES as readonly string[]).includes(key)) return { type: key as WebhookType };
  const event = findEvent(key);
  if (event) return { type: 'LIFECYCLE_EVENT', event };
  const candidates = [...WEBHOOK_TYPES, ...EVENTS.map((e) => e.name)];
  throw usageError(
    `unknown webhook type or event "${input}"${didYouMean(input, candidates)}; use ENTITY_UPDATE, LIFECYCLE_EVENT or an event name from \`ledgerhook events\``,
    'unknown_webhook_type',
  );
}
