import { LedgerhookError } from '../errors.js';
import { didYouMean } from '../catalogue/suggest.js';
import { LIFECYCLE_EVENT_NAMES } from '../catalogue/events.js';
import { DEFAULT_HEADER_NAME } from '../defaults.js';
import type { WebhookBody } from '../webhook/body-hash.js';
import { findHeader, verifyWebhookRequest, type HeadersLike } from '../webhook/request.js';
import type { LabelledSecret, SecretInput } from '../webhook/secrets.js';
import { accepted, refused, type ReceiverAnswer } from './answer.js';
import { acceptableForSeconds, dedupeKey, type DedupeStore } from './dedupe.js';
import type { WebhookDelivery, WebhookEventMap, WebhookEventName } from './event-types.js';
import { WebhookHandlerError } from './handler-error.js';
import { routeDelivery } from './route-delivery.js';
import { runHandlers, type AnyHandler } from './run-handlers.js';
import { assertHandler, rawBody, usableSecrets } from './webhooks-input.js';
import { validateTolerance } from '../webhook/tolerance.js';
import { validateVerificationPrefix } from '../webhook/verification-prefix.js';

/** Where the receiver reports what only the developer should see (never the sender). */
export interface ReceiverLog {
  warn(message: string): void;
  error(message: string): void;
}

/** Options of `new Webhooks`: the secret or secrets, tolerance, header name, verification prefix, deduplication, clock and log. */
export interface WebhooksOptions {
  /** The environment's webhook_secret (spec 5.2). Give this or `secrets`. */
  secret?: string | undefined;
  /** Several secrets (sandbox and production, or a rotation); the first that verifies wins. */
  secrets?: readonly SecretInput[] | undefined;
  /** Freshness tolerance (spec 5.2 step 3): whole seconds, 1 or more; default 300. */
  toleranceSeconds?: number | undefined;
  /** The verification header; default Service-Verification ("Service-" is the service's own name). */
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  /** Accept tokens issued in the future (clock skew on this machine); default false: refused. */
  allowFutureIat?: boolean | undefined;
  /**
   * Process a retried LIFECYCLE_EVENT once (its handlers may send an email): see `memoryDedupe()`.
   * Default: off. ENTITY_UPDATEs are not deduplicated unless `dedupeEntityUpdates`: one only says
   * "fetch again", and an identical one may announce a newer change (same user, entities and second
   * sign to the same token), which a skipped duplicate would lose; refetching is harmless.
   */
  dedupe?: DedupeStore | undefined;
  dedupeEntityUpdates?: boolean | undefined;
  /** Clock in milliseconds since the epoch (tests). */
  now?: (() => number) | undefined;
  /** Default: console. */
  log?: ReceiverLog | undefined;
}

/** A handler for one name; its return value is awaited before the delivery is answered. */
export type WebhookHandler<N extends WebhookEventName> = (
  event: WebhookEventMap[N],
  delivery: WebhookDelivery,
) => unknown;

const ON_NAMES: readonly string[] = ['ENTITY_UPDATE', 'LIFECYCLE_EVENT', ...LIFECYCLE_EVENT_NAMES];

/**
 * Verifies deliveries exactly as `verifyWebhookRequest` does (on the raw bytes) and dispatches the
 * authentic ones to typed handlers. Mount it with `createNodeMiddleware` or `createWebMiddleware`.
 *
 * @example
 * const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET });
 * webhooks.on('ENTITY_UPDATE', async ({ userId, entities }) => refresh(userId, entities));
 * webhooks.on('TRANSACTION_PULL_COMPLETED', ({ eventData }) => notify(eventData.integrationName));
 * webhooks.onError((error) => console.error(error.reason, error.cause));
 */
export class Webhooks {
  readonly #secrets: LabelledSecret[];
  readonly #tolerance: number;
  readonly #headerName: string;
  readonly #verificationPrefix: string | undefined;
  readonly #allowFutureIat: boolean;
  readonly #dedupe: DedupeStore | undefined;
  readonly #dedupeEntityUpdates: boolean;
  readonly #now: () => number;
  readonly #handlers = new Map<string, AnyHandler[]>();
  readonly #anyHandlers: AnyHandler[] = [];
  readonly #errorHandlers: Array<(error: WebhookHandlerError) => unknown> = [];
  /** Shared with the middlewares so that every message goes to one place. */
  readonly log: ReceiverLog;

  constructor(options: WebhooksOptions) {
    this.#secrets = usableSecrets(options);
    this.#tolerance = validateTolerance(options.toleranceSeconds);
    this.#headerName = options.headerName ?? DEFAULT_HEADER_NAME;
    this.#verificationPrefix =
      options.verificationPrefix === undefined ? undefined : validateVerificationPrefix(options.verificationPrefix);
    this.#allowFutureIat = options.allowFutureIat ?? false;
    this.#dedupe = options.dedupe;
    this.#dedupeEntityUpdates = options.dedupeEntityUpdates === true;
    this.#now = options.now ?? Date.now;
    this.log = options.log ?? console;
  }

  /** The header carrying the token (the middlewares read only this one). */
  get headerName(): string {
    return this.#headerName;
  }

  /**
   * Registers a handler for ENTITY_UPDATE, LIFECYCLE_EVENT (every lifecycle event, known or not)
   * or one lifecycle event by name (its eventData narrowed). Several names may share a handler.
   *
   * @example
   * webhooks.on('INVOICE_VIEWED', async ({ userId, eventData }) => notifyUser(userId, eventData));
   */
  on<N extends WebhookEventName>(name: N | readonly N[], handler: WebhookHandler<N>): this {
    assertHandler(handler, 'on');
    for (const one of (Array.isArray(name) ? name : [name]) as string[]) {
      if (!ON_NAMES.includes(one))
        throw new LedgerhookError(
          'ERR_USAGE',
          `no webhook event is named "${one}"${didYouMean(one, ON_NAMES)}; events outside the catalogue reach LIFECYCLE_EVENT and onAny handlers`,
          { details: { reason: 'unknown_event_name', name: one } },
        );
      const list = this.#handlers.get(one) ?? [];
      list.push(handler as AnyHandler);
      this.#handlers.set(one, list);
    }
    return this;
  }

  /**
   * Registers a handler for every authentic delivery, unknown names and types included.
   *
   * @example
   * webhooks.onAny((delivery) => audit.write(delivery.body));
   */
  onAny(handler: (delivery: WebhookDelivery) => unknown): this {
    assertHandler(handler, 'onAny');
    this.#anyHandlers.push((delivery) => handler(delivery as WebhookDelivery));
    return this;
  }

  /**
   * Receives every failure of an authentic delivery (a handler threw, the body is unusable).
   * The sender only ever sees `{"error":"handler_failed"}`.
   *
   * @example
   * webhooks.onError((error) => logger.error({ reason: error.reason, handler: error.handlerName }, error.cause));
   */
  onError(handler: (error: WebhookHandlerError) => unknown): this {
    assertHandler(handler, 'onError');
    this.#errorHandlers.push(handler);
    return this;
  }

  /**
   * The framework-free core: verifies the raw body against the headers, runs the handlers and
   * returns what to answer (200, 400 `{error: code}`, 500 when a handler failed).
   *
   * @example
   * const answer = await webhooks.verifyAndReceive({ headers: req.headers, body: rawBytes });
   * reply.code(answer.status).headers(answer.headers).send(answer.body);
   */
  async verifyAndReceive(request: { headers: HeadersLike; body: WebhookBody | undefined }): Promise<ReceiverAnswer> {
    const { headers } = request;
    const body = rawBody(request.body);
    const result = await verifyWebhookRequest({
      headers,
      body,
      secrets: this.#secrets,
      toleranceSeconds: this.#tolerance,
      headerName: this.#headerName,
      verificationPrefix: this.#verificationPrefix,
      now: this.#now,
      allowFutureIat: this.#allowFutureIat,
      // The answer says only the code: no re-serialising of a body nobody will read (one hash per delivery).
      diagnose: false,
    });
    if (!result.ok) return refused(400, result.code);
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const parsed = routeDelivery(body);
    if (!parsed.ok) {
      const reason = `an authentic delivery is unusable: ${parsed.reason}`;
      await this.#report([new WebhookHandlerError('invalid_body', reason, { rawBody: bytes })]);
      return refused(400, 'invalid_body');
    }
    const { route } = parsed;
    const delivery: WebhookDelivery = {
      body: route.body,
      rawBody: bytes,
      claims: result.claims,
      secretLabel: result.secretLabel,
      hasUnknownNames: route.hasUnknownNames,
    };
    const dedupes = this.#dedupe && (route.body.type !== 'ENTITY_UPDATE' || this.#dedupeEntityUpdates);
    const key = dedupes ? dedupeKey(findHeader(headers, this.#headerName).value ?? '') : undefined;
    if (this.#dedupe && key !== undefined) {
      const ttlSeconds = acceptableForSeconds(result.claims.iat, this.#tolerance, this.#now());
      if (!(await this.#dedupe.claim(key, ttlSeconds))) return accepted(true);
    }
    const failures = await runHandlers(route.targets, this.#handlers, this.#anyHandlers, delivery);
    if (failures.length === 0) return accepted();
    if (this.#dedupe && key !== undefined) await this.#dedupe.release(key);
    await this.#report(failures);
    return refused(500, 'handler_failed');
  }

  async #report(errors: WebhookHandlerError[]): Promise<void> {
    for (const error of errors) {
      if (this.#errorHandlers.length === 0) {
        this.log.error(`ledgerhook: ${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`);
        continue;
      }
      for (const handler of this.#errorHandlers) {
        try {
          await handler(error);
        } catch (thrown) {
          this.log.error(`ledgerhook: an onError handler threw: ${thrown instanceof Error ? thrown.message : thrown}`);
        }
      }
    }
  }
}
