import type { ChalkInstance } from 'chalk';
import type { MockWebhookEvent } from '../../../mock/mock-webhooks.js';
import { formatDuration } from '../../durations.js';
import { printableLine } from '../../render-delivery.js';

/** One webhook the mock sent (or will retry), as `mock` prints it; a recorded body's names escaped (mock --from). */
export function webhookLine(event: MockWebhookEvent, c: ChalkInstance): string {
  const what = printableLine(
    event.body.type === 'ENTITY_UPDATE'
      ? `ENTITY_UPDATE ${event.body.entities.join(',')}`
      : `LIFECYCLE_EVENT ${event.body.event}`,
  );
  const nth = event.attempt === undefined ? '' : ` (attempt ${event.attempt})`;
  if (event.type === 'webhook-retry')
    return c.yellow(
      `  webhook ${what} → ${event.status ?? `failed: ${event.error}`}${nth}; retry in ${formatDuration(event.retryInMs)}`,
    );
  return event.type === 'webhook-sent'
    ? c.dim(`  webhook ${what} → ${event.status}${nth}`)
    : c.red(`  webhook ${what} failed: ${event.error}${nth}`);
}
