import type { Dispatcher } from 'undici';
import { EVENTS } from '../catalogue/events.js';
import { type BuildDeliveryOptions, buildDelivery } from '../delivery/build-delivery.js';
import { type PostWebhookOptions, postWebhook } from '../delivery/post-webhook.js';
import { LedgerhookError } from '../errors.js';
import type { WebhookBodyObject } from '../webhook/bodies.js';
import { serviceDate } from './entity-generators.js';
import type { MutationResult } from './mock-types.js';

export type MockWebhookEvent =
  | { type: 'webhook-sent'; body: WebhookBodyObject; status: number }
  | { type: 'webhook-failed'; body: WebhookBodyObject; error: string };

export interface MockWebhookOptions {
  url: URL;
  secret: string;
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  dispatcher?: Dispatcher | undefined;
  onEvent?: ((event: MockWebhookEvent) => void) | undefined;
}

/** Which catalogue event fits a change of an entity: data, not code paths (events.ts names the entity). */
function eventFor(entity: string, kind: 'created' | 'updated' | 'retyped'): string | undefined {
  const suffixes = kind === 'created' ? ['_ADDED', '_CREATED'] : kind === 'updated' ? ['_UPDATED'] : ['_AUTO_TAGGED'];
  return EVENTS.find((event) => event.entity === entity && suffixes.some((suffix) => event.name.endsWith(suffix)))
    ?.name;
}

/** The deliveries the service would send for one mutation: an ENTITY_UPDATE, then lifecycle events where one fits. */
export function webhooksForMutation(result: MutationResult): WebhookBodyObject[] {
  const bodies: WebhookBodyObject[] = [{ userId: result.userId, type: 'ENTITY_UPDATE', entities: [result.entity] }];
  const byId = new Map(result.items.map((item) => [item.id, item]));
  for (const kind of ['created', 'updated', 'retyped'] as const) {
    const ids = result[kind];
    const firstId = ids[0];
    if (firstId === undefined) continue;
    const event = eventFor(result.entity, kind);
    if (!event) continue;
    const first = byId.get(firstId);
    const eventData: Record<string, unknown> =
      event === 'EXPENSE_ADDED' && first
        ? // Spec 2.2: what routes the user to the exact transaction.
          {
            expenseId: first.id,
            bankAccountId: first.bankAccountId,
            amount: first.amount,
            date: first.date ?? serviceDate(Date.parse(result.at)),
            count: ids.length,
          }
        : { entityType: result.entity, entityId: firstId, entityIds: ids, count: ids.length };
    bodies.push({ userId: result.userId, type: 'LIFECYCLE_EVENT', event, eventData });
  }
  return bodies;
}

/**
 * Sends the webhooks of each mutation, signed through the same code as `ledgerhook sign`, one
 * at a time and in order (a real sender's ordering is not specified; in-order is the kind case).
 */
export function createMockWebhookSender(options: MockWebhookOptions): {
  send(result: MutationResult): void;
  idle(): Promise<void>;
} {
  let queue = Promise.resolve();
  const deliver = async (body: WebhookBodyObject) => {
    try {
      // The delivery modules' options are optional without `| undefined`: set them only when given.
      const build: BuildDeliveryOptions = { body: JSON.stringify(body), secret: options.secret };
      if (options.headerName) build.headerName = options.headerName;
      if (options.verificationPrefix) build.verificationPrefix = options.verificationPrefix;
      const delivery = await buildDelivery(build);
      const post: PostWebhookOptions = { url: options.url, body: delivery.body, headers: delivery.headers };
      if (options.dispatcher) post.dispatcher = options.dispatcher;
      const response = await postWebhook(post);
      options.onEvent?.({ type: 'webhook-sent', body, status: response.status });
    } catch (error) {
      options.onEvent?.({
        type: 'webhook-failed',
        body,
        error: error instanceof LedgerhookError ? error.message : String(error),
      });
    }
  };
  return {
    send(result) {
      for (const body of webhooksForMutation(result)) queue = queue.then(() => deliver(body));
    },
    idle: () => queue,
  };
}
