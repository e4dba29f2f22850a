/** The defaults of receiving and verifying webhooks, in one dependency-free module. */

/** The header carrying the token ("Service-" stands for the service's own name). */
export const DEFAULT_HEADER_NAME = 'Service-Verification';
/** The recommended webhook age tolerance, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The largest request body a receiver reads (a webhook body is a few hundred bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/**
 * Largest body whose body_mismatch is explained (re-serialised? newline? hex digest?): the
 * explanation re-serialises the body several times, so it runs only on bodies this small, only when
 * the signature verified, and never before the sender is answered. Real webhook bodies are a few
 * hundred bytes.
 */
export const DIAGNOSE_MAX_BODY_BYTES = 64 * 1024;
