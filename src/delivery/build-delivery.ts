import { signClaims, webhookClaims } from '@ledgerhook/webhooks/advanced';
import { DEFAULT_HEADER_NAME } from '../defaults.js';
import { withVerificationPrefix } from '@ledgerhook/webhooks/advanced';

export interface OutgoingDelivery {
  body: Uint8Array;
  /** A repeated header (a replay "as captured") is an array: every copy goes out, in order. */
  headers: Record<string, string | string[]>;
}

export interface BuildDeliveryOptions {
  body: Uint8Array | string;
  /** Omit to send the delivery unsigned. */
  secret?: string | undefined;
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  /** Issue time in seconds; defaults to the clock. */
  iat?: number | undefined;
  now?: (() => number) | undefined;
}

export const USER_AGENT = 'ledgerhook';

/** A delivery as the service sends it (spec 4.1): POST, JSON, signed in the verification header. */
export async function buildDelivery(options: BuildDeliveryOptions): Promise<OutgoingDelivery> {
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (options.secret !== undefined) {
    const claims = webhookClaims(body, { iat: options.iat, now: options.now });
    headers[(options.headerName ?? DEFAULT_HEADER_NAME).toLowerCase()] = withVerificationPrefix(
      await signClaims(claims, options.secret),
      options.verificationPrefix,
    );
  }
  return { body, headers };
}
