/**
 * The battery `check-receiver` sends, as data: what each case is and what a receiver must answer.
 * The deliveries themselves are built in receiver-cases.ts; this table alone feeds --help and
 * --only/--skip validation without loading any signing code.
 *
 * level: `required` follows from spec 5.2 (a receiver that gets it wrong accepts what the spec says to
 * refuse, or refuses a genuine delivery); `recommended` is hardening beyond the spec, reported as a
 * warning unless the check is strict.
 * kind: `forged` was not signed with the secret; `altered` carries a genuine token over other bytes;
 * `invalid` is signed with the secret but breaks a rule (algorithm, freshness, hash encoding).
 */
export const RECEIVER_CASE_TABLE = [
  { id: 'valid-entity-update', expect: 'accept', level: 'required', kind: 'valid', title: 'a valid ENTITY_UPDATE' },
  {
    id: 'valid-lifecycle-event',
    expect: 'accept',
    level: 'required',
    kind: 'valid',
    title: 'a valid LIFECYCLE_EVENT',
  },
  {
    id: 'valid-near-expiry',
    expect: 'accept',
    level: 'required',
    kind: 'valid',
    title: 'a valid delivery one skew margin inside the tolerance',
  },
  {
    id: 'valid-clock-ahead',
    expect: 'accept',
    level: 'required',
    kind: 'valid',
    title: "a valid delivery whose iat is one skew margin ahead of the receiver's clock",
  },
  { id: 'missing-header', expect: 'reject', level: 'required', kind: 'forged', title: 'no verification header' },
  { id: 'not-a-jwt', expect: 'reject', level: 'required', kind: 'forged', title: 'a token that is not a JWT' },
  { id: 'alg-none', expect: 'reject', level: 'required', kind: 'forged', title: 'an unsigned token (alg none)' },
  { id: 'hs512', expect: 'reject', level: 'required', kind: 'invalid', title: 'HS512 with the right secret' },
  { id: 'wrong-secret', expect: 'reject', level: 'required', kind: 'forged', title: 'HS256 with a wrong secret' },
  {
    id: 'expired',
    expect: 'reject',
    level: 'required',
    kind: 'invalid',
    title: 'expired (iat = now - tolerance - skew margin)',
  },
  {
    id: 'body-changed',
    expect: 'reject',
    level: 'required',
    kind: 'altered',
    title: 'body changed by one byte after signing',
  },
  {
    id: 'body-reserialised',
    expect: 'reject',
    level: 'required',
    kind: 'altered',
    title: 'body re-serialised after signing',
  },
  {
    id: 'body-swapped',
    expect: 'reject',
    level: 'required',
    kind: 'altered',
    title: 'a valid token from another delivery',
  },
  {
    id: 'hex-hash',
    expect: 'reject',
    level: 'required',
    kind: 'invalid',
    title: 'request_body_sha256 in hex instead of Base64',
  },
  {
    id: 'future-iat',
    expect: 'reject',
    level: 'recommended',
    kind: 'invalid',
    title: 'issued in the future (iat = now + tolerance + 60); the service documents only expiry',
  },
  {
    id: 'duplicated-header',
    expect: 'reject',
    level: 'recommended',
    kind: 'forged',
    title: 'two verification headers: a valid token, then one not signed with the secret',
  },
] as const satisfies ReadonlyArray<{
  id: string;
  expect: 'accept' | 'reject';
  level: 'required' | 'recommended';
  kind: 'valid' | 'forged' | 'altered' | 'invalid';
  title: string;
}>;

export type ReceiverCaseId = (typeof RECEIVER_CASE_TABLE)[number]['id'];
export type ReceiverCaseLevel = (typeof RECEIVER_CASE_TABLE)[number]['level'];
export type ReceiverCaseKind = (typeof RECEIVER_CASE_TABLE)[number]['kind'];
export const RECEIVER_CASE_IDS: readonly string[] = RECEIVER_CASE_TABLE.map((c) => c.id);
