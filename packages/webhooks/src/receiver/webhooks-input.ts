/**
 * What a caller hands the receiver, checked where it arrives: the secrets once, each handler as it
 * is registered, each body before it is verified.
 */
import { LedgerhookError } from '../errors.js';
import type { WebhookBody } from '../webhook/body-hash.js';
import { normaliseSecrets, type LabelledSecret } from '../webhook/secrets.js';
import type { WebhooksOptions } from './webhooks.js';

/** The non-empty secrets of `secret` and `secrets`; none is a usage error. */
export function usableSecrets(options: Pick<WebhooksOptions, 'secret' | 'secrets'>): LabelledSecret[] {
  const secrets = [...normaliseSecrets(options.secret), ...normaliseSecrets(options.secrets)].filter(
    (entry) => typeof entry.secret === 'string' && entry.secret.length > 0,
  );
  if (secrets.length === 0)
    throw new LedgerhookError('ERR_USAGE', 'Webhooks needs a non-empty webhook secret (secret or secrets)', {
      details: { reason: 'missing_webhook_secret' },
    });
  return secrets;
}

/** JavaScript callers get no compile-time check: a non-function would fail every delivery with a 500. */
export function assertHandler(handler: unknown, method: string): void {
  if (typeof handler !== 'function')
    throw new LedgerhookError('ERR_USAGE', `${method} needs a function as its handler, got ${typeof handler}`, {
      details: { reason: 'handler_not_function', method },
    });
}

/**
 * The body exactly as received; no body at all is the empty body. Anything else means a body
 * parser already ran: the raw bytes are gone, and a re-serialised object is never verified.
 */
export function rawBody(body: unknown): WebhookBody {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new LedgerhookError(
    'ERR_USAGE',
    `the webhook body must be the raw bytes (a Buffer, Uint8Array or string), got ${Array.isArray(body) ? 'an array' : typeof body}: a body parser ran before verification`,
    { details: { reason: 'body_not_raw' } },
  );
}
