import type { WebhookBody } from './body-hash.js';
import type { SecretInput } from './secrets.js';

/** Options of `verifyWebhook`: the raw body, the token, the secrets, and the tolerance, clock and prefix to verify with. */
export interface VerifyWebhookOptions {
  body: WebhookBody;
  /** The Service-Verification header value (the bare JWT, or the JWT after verificationPrefix). */
  token: string | undefined | null;
  /**
   * What the service puts before the JWT in the header (e.g. "Bearer "), when it does; spec 5.2 shows
   * none, so by default there is none and a prefixed value is refused (naming what was seen).
   */
  verificationPrefix?: string | undefined;
  /** One or more secrets (sandbox and production, or a rotation); the first that verifies wins. */
  secrets: SecretInput | readonly SecretInput[];
  /**
   * Used only to explain a bad signature ("verifies with the production secret"); never to accept.
   * May be a function, so that a caller loads them only when a signature actually fails.
   */
  otherSecrets?: readonly SecretInput[] | (() => Promise<readonly SecretInput[]>) | undefined;
  /** Freshness tolerance (spec 5.2 step 3): whole seconds, 1 or more; default 300. */
  toleranceSeconds?: number | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  /** Skip the freshness check (for replaying old captures offline). */
  ignoreExpiry?: boolean | undefined;
  /**
   * Accept an iat further in the future than the tolerance, with a warning. By default such a
   * token is refused as issued_in_future: it would otherwise stay valid until that time comes.
   */
  allowFutureIat?: boolean | undefined;
  /**
   * The whole picture (default true): an accepted delivery's `checks` listed, a body_mismatch explained
   * (re-serialisations and digests of the body, only when the signature verified and the body is at most
   * DIAGNOSE_MAX_BODY_BYTES), and a forged body's integrity checked. Receivers on the answer path pass
   * false: an accepted delivery then has no `checks`, a forged body is not hashed, and a refusal is
   * explained later, on demand (captures show, verify --delivery, inspector).
   */
  diagnose?: boolean | undefined;
}
