import { validateTolerance, validateVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import { DEFAULT_HEADER_NAME, DEFAULT_RECEIVER_SKEW_SECONDS } from '../defaults.js';
import { LedgerhookError } from '../errors.js';

/**
 * How the deliveries a check sends are signed and presented, as the service would: the `signing` group
 * of checkReceiver and checkConsumer (the consumer hands its own to the receiver battery as resolved).
 */
export interface DeliverySigning {
  secret: string;
  headerName?: string | undefined;
  /** What the service puts before the JWT (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  toleranceSeconds?: number | undefined;
  /** Clock difference allowed at the tolerance's edges (near expiry, expired, clock ahead); default 5. */
  skewSeconds?: number | undefined;
}

export interface ResolvedDeliverySigning {
  secret: string;
  headerName: string;
  verificationPrefix: string | undefined;
  toleranceSeconds: number;
  skewSeconds: number;
}

function validateSkew(value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new LedgerhookError('ERR_USAGE', `the skew must be a number of seconds >= 0, got ${String(value)}`, {
      details: { reason: 'invalid_skew', value },
    });
  return value;
}

/** The defaults applied and each setting checked, once, before anything is sent. */
export function normalizeDeliverySigning(signing: DeliverySigning): ResolvedDeliverySigning {
  const skewSeconds = validateSkew(signing.skewSeconds ?? DEFAULT_RECEIVER_SKEW_SECONDS);
  const toleranceSeconds = validateTolerance(signing.toleranceSeconds);
  const verificationPrefix =
    signing.verificationPrefix === undefined ? undefined : validateVerificationPrefix(signing.verificationPrefix);
  const headerName = signing.headerName ?? DEFAULT_HEADER_NAME;
  return { secret: signing.secret, headerName, verificationPrefix, toleranceSeconds, skewSeconds };
}
