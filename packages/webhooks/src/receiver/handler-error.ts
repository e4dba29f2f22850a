import type { WebhookDelivery } from './event-types.js';

/** Why an authentic delivery was not processed; what `onError` handlers receive. */
export type WebhookErrorReason = 'handler_failed' | 'invalid_body';

/**
 * Reported to `onError` (never sent to the sender): a handler threw or rejected, or an authentic
 * delivery's body does not have the shape of spec 2.1/2.2. `cause` is what the handler threw.
 *
 * @example
 * webhooks.onError((error: WebhookHandlerError) => {
 *   logger.error({ reason: error.reason, handler: error.handlerName, userId: error.delivery?.body.userId }, error.cause);
 * });
 */
export class WebhookHandlerError extends Error {
  readonly reason: WebhookErrorReason;
  /** The handler name that failed ('ENTITY_UPDATE', an event name, 'LIFECYCLE_EVENT' or '*' for onAny). */
  readonly handlerName: string | undefined;
  readonly delivery: WebhookDelivery | undefined;
  /**
   * The authentic bytes, also when they could not become a delivery (`invalid_body`), so that a
   * body the receiver cannot route is still in your hands rather than dropped.
   */
  readonly rawBody: Uint8Array | undefined;

  constructor(
    reason: WebhookErrorReason,
    message: string,
    options: {
      cause?: unknown;
      handlerName?: string | undefined;
      delivery?: WebhookDelivery | undefined;
      rawBody?: Uint8Array | undefined;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebhookHandlerError';
    this.reason = reason;
    this.handlerName = options.handlerName;
    this.delivery = options.delivery;
    this.rawBody = options.rawBody ?? options.delivery?.rawBody;
  }
}
