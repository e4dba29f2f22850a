/**
 * The battery `check-receiver` sends, as data: what each case is and what a receiver that follows
 * spec 5.2 must answer. The deliveries themselves are built in receiver-cases.ts; this table alone
 * feeds --help and --only/--skip validation without loading any signing code.
 */
export const RECEIVER_CASE_TABLE = [
  { id: 'valid-entity-update', expect: 'accept', title: 'a valid ENTITY_UPDATE' },
  { id: 'valid-lifecycle-event', expect: 'accept', title: 'a valid LIFECYCLE_EVENT' },
  { id: 'valid-near-expiry', expect: 'accept', title: 'a valid delivery 5s inside the tolerance' },
  { id: 'missing-header', expect: 'reject', title: 'no verification header' },
  { id: 'not-a-jwt', expect: 'reject', title: 'a token that is not a JWT' },
  { id: 'alg-none', expect: 'reject', title: 'an unsigned token (alg none)' },
  { id: 'hs512', expect: 'reject', title: 'HS512 with the right secret' },
  { id: 'wrong-secret', expect: 'reject', title: 'HS256 with a wrong secret' },
  { id: 'expired', expect: 'reject', title: 'expired (iat = now - tolerance)' },
  { id: 'future-iat', expect: 'reject', title: 'issued in the future (iat = now + tolerance + 60)' },
  { id: 'body-changed', expect: 'reject', title: 'body changed by one byte after signing' },
  { id: 'body-reserialised', expect: 'reject', title: 'body re-serialised after signing' },
  { id: 'body-swapped', expect: 'reject', title: 'a valid token from another delivery' },
  { id: 'hex-hash', expect: 'reject', title: 'request_body_sha256 in hex instead of Base64' },
] as const satisfies ReadonlyArray<{ id: string; expect: 'accept' | 'reject'; title: string }>;

export type ReceiverCaseId = (typeof RECEIVER_CASE_TABLE)[number]['id'];
export const RECEIVER_CASE_IDS: readonly string[] = RECEIVER_CASE_TABLE.map((c) => c.id);
