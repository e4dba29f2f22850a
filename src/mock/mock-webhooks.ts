import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_PENDING_MOCK_WEBHOOKS } from '../defaults.js';
import { delay } from '../util/delay.js';
import { EVENTS } from '@ledgerhook/webhooks';
import { type BuildDeliveryOptions, buildDelivery } from '../delivery/build-delivery.js';
import { type PostWebhookOptions, postWebhook } from '../delivery/post-webhook.js';
import { LedgerhookError } from '../errors.js';
import type { WebhookBodyObject } from '@ledgerhook/webhooks';
import { serviceDate } from './entity-generators.js';
import type { MutationResult } from './mock-types.js';

export type MockWebhookEvent =
  | { type: 'webhook-sent'; body: WebhookBodyObject; status: number; attempt?: number }
  | { type: 'webhook-failed'; body: WebhookBodyObject; error: string; attempt?: number }
  /** Not answered 2xx: sent again (re-signed) in retryInMs. */
  | {
      type: 'webhook-retry';
      body: WebhookBodyObject;
      attempt: number;
      status?: number | undefined;
      error?: string | undefined;
      retryInMs: number;
    };

export interface MockWebhookOptions {
  url: URL;
  secret: string;
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  dispatcher?: Dispatcher | undefined;
  onEvent?: ((event: MockWebhookEvent) => void) | undefined;
  /** Send a webhook not answered 2xx again after each of these waits (default: never), re-signed each time. */
  retryScheduleMs?: readonly number[] | undefined;
  /** Webhooks waiting for a retry at once; past it a failure is final (said as webhook-sent/failed). */
  maxPendingRetries?: number | undefined;
  /** Injected so that tests never wait; rejects when the signal aborts. */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
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
  /** Sends these exact bytes (a recorded delivery), signed now, in order; resolves once its first attempt is answered. */
  resend(body: WebhookBodyObject, raw: Buffer): Promise<void>;
  /** Resolves once every webhook queued so far was sent, retries included. */
  idle(): Promise<void>;
  /** Drops the retries still waiting (the mock is stopping). */
  stop(): void;
} {
  let queue = Promise.resolve();
  const retries = new Set<Promise<void>>();
  const stopped = new AbortController();
  const schedule = options.retryScheduleMs ?? [];
  const maxPending = options.maxPendingRetries ?? DEFAULT_MAX_PENDING_MOCK_WEBHOOKS;
  const post = async (raw: string | Buffer): Promise<{ status: number } | { error: string }> => {
    try {
      // The delivery modules' options are optional without `| undefined`: set them only when given.
      const build: BuildDeliveryOptions = { body: raw, secret: options.secret };
      if (options.headerName) build.headerName = options.headerName;
      if (options.verificationPrefix) build.verificationPrefix = options.verificationPrefix;
      const delivery = await buildDelivery(build);
      const request: PostWebhookOptions = { url: options.url, body: delivery.body, headers: delivery.headers };
      if (options.dispatcher) request.dispatcher = options.dispatcher;
      return { status: (await postWebhook(request)).status };
    } catch (error) {
      return { error: error instanceof LedgerhookError ? error.message : String(error) };
    }
  };
  const deliver = async (body: WebhookBodyObject, attempt: number, raw: string | Buffer): Promise<void> => {
    const answer = await post(raw);
    const ok = 'status' in answer && answer.status >= 200 && answer.status < 300;
    const wait = ok || stopped.signal.aborted || retries.size >= maxPending ? undefined : schedule[attempt - 1];
    const numbered = schedule.length > 0 ? { attempt } : {};
    if (wait === undefined) {
      options.onEvent?.(
        'status' in answer
          ? { type: 'webhook-sent', body, status: answer.status, ...numbered }
          : { type: 'webhook-failed', body, error: answer.error, ...numbered },
      );
      return;
    }
    options.onEvent?.({ type: 'webhook-retry', body, attempt, ...answer, retryInMs: wait });
    // Off the ordered queue: later webhooks are not held back by one waiting (as a real sender's retries).
    const retry = (options.sleep ?? delay)(wait, stopped.signal).then(
      () => deliver(body, attempt + 1, raw),
      () => {},
    );
    retries.add(retry);
    void retry.finally(() => retries.delete(retry));
  };
  return {
    send(result) {
      for (const body of webhooksForMutation(result)) queue = queue.then(() => deliver(body, 1, JSON.stringify(body)));
    },
    resend(body, raw) {
      const sent = queue.then(() => deliver(body, 1, raw));
      queue = sent;
      return sent;
    },
    async idle() {
      await queue;
      while (retries.size > 0) await Promise.allSettled([...retries]);
    },
    stop: () => stopped.abort(new Error('stopping')),
  };
}
