/**
 * What a receiver answers the sender, independent of the framework. Bodies are fixed JSON with a
 * stable code: nothing from a handler (messages, stacks) ever reaches the sender.
 */
export interface ReceiverAnswer {
  status: number;
  body: { received: true; duplicate?: true } | { error: string };
  headers: Record<string, string>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

export const accepted = (duplicate = false): ReceiverAnswer => ({
  status: 200,
  body: duplicate ? { received: true, duplicate: true } : { received: true },
  headers: JSON_TYPE,
});

export const refused = (status: number, error: string, headers: Record<string, string> = {}): ReceiverAnswer => ({
  status,
  body: { error },
  headers: { ...JSON_TYPE, ...headers },
});

/** Spec 4.1: deliveries are POST; anything else is answered like `ledgerhook listen` does. */
export const methodNotAllowed = (): ReceiverAnswer => refused(405, 'method_not_allowed', { allow: 'POST' });

export const bodyTooLarge = (): ReceiverAnswer => refused(413, 'body_too_large', { connection: 'close' });
