/**
 * The battery `check-consumer` runs against a user's consumer, as data: what each case does to the
 * emulated service and what the consumer's store must do about it. The steps themselves are in
 * consumer-cases.ts; this table alone feeds --help and --only/--skip validation.
 *
 * level: `required` cases decide the exit code: the consumer's store must end equal to the service.
 * `limitation` cases show what webhooks alone cannot bring (a change no webhook announced): not
 * converging there is the expected outcome, reported and never failed; converging is reported too.
 * `baseline` always runs first: every later case compares against a store that started equal.
 */
export const CONSUMER_CASE_TABLE = [
  {
    id: 'baseline',
    level: 'required',
    title: 'one ENTITY_UPDATE for the seeded data: the store starts equal to the service',
  },
  {
    id: 'duplicate-immediate',
    level: 'required',
    title: 'the same delivery twice at once',
  },
  {
    id: 'duplicate-after-change',
    level: 'required',
    title: 'the same delivery again after its 2xx, the data changed in between (same bytes, same token)',
  },
  {
    id: 'reverse-order',
    level: 'required',
    title: 'two deliveries of two changes, the later one first',
  },
  {
    id: 'burst',
    level: 'required',
    title: 'a burst of deliveries for one user (500 by default), the data changing throughout',
  },
  {
    id: 'lost-webhook',
    level: 'limitation',
    title: 'the data changed and no webhook was sent: only reconcile catches this',
  },
  {
    id: 'retype-out-of-filter',
    level: 'required',
    title: 'an expense leaves type=PENDING: it must leave a PENDING dataset (deletedIds)',
  },
  {
    id: 'rate-limited',
    level: 'required',
    title: 'the API answers 429 with Retry-After in the middle of the read a delivery triggers',
  },
  {
    id: 'near-expiry',
    level: 'required',
    title: 'a delivery whose iat is one skew margin inside the tolerance',
  },
] as const satisfies ReadonlyArray<{ id: string; level: 'required' | 'limitation'; title: string }>;

export type ConsumerCaseId = (typeof CONSUMER_CASE_TABLE)[number]['id'];
export type ConsumerCaseLevel = (typeof CONSUMER_CASE_TABLE)[number]['level'];
export const CONSUMER_CASE_IDS: readonly string[] = CONSUMER_CASE_TABLE.map((c) => c.id);
