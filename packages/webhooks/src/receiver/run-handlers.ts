import type { WebhookDelivery } from './event-types.js';
import { WebhookHandlerError } from './handler-error.js';
import type { Route } from './route-delivery.js';

export type AnyHandler = (payload: unknown, delivery: WebhookDelivery) => unknown;

async function call(handler: AnyHandler, payload: unknown, delivery: WebhookDelivery): Promise<void> {
  await handler(payload, delivery);
}

/**
 * Runs every handler the route names, and every onAny handler, concurrently (a slow handler does
 * not hold the others up) and waits for all: the sender gets 200 only once every one resolved.
 * Returns one error per failed handler; an exception thrown synchronously counts as a failure.
 */
export async function runHandlers(
  targets: Route['targets'],
  handlers: ReadonlyMap<string, readonly AnyHandler[]>,
  anyHandlers: readonly AnyHandler[],
  delivery: WebhookDelivery,
): Promise<WebhookHandlerError[]> {
  const calls: Array<{ name: string; done: Promise<void> }> = [];
  for (const target of targets) {
    for (const handler of handlers.get(target.name) ?? [])
      calls.push({ name: target.name, done: call(handler, target.payload, delivery) });
  }
  for (const handler of anyHandlers) calls.push({ name: '*', done: call(handler, delivery, delivery) });
  if (calls.length === 0) return [];
  const settled = await Promise.allSettled(calls.map((entry) => entry.done));
  const failures: WebhookHandlerError[] = [];
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    const handlerName = calls[index]?.name;
    failures.push(
      new WebhookHandlerError('handler_failed', `the ${handlerName === '*' ? 'onAny' : handlerName} handler failed`, {
        cause: outcome.reason,
        handlerName,
        delivery,
      }),
    );
  });
  return failures;
}
