/**
 * The battery `check-consumer` runs against a user's consumer, as data: what each case does to the
 * emulated service, and which consumer bug it catches. The steps themselves are in consumer-cases.ts
 * and race-cases.ts; this table alone feeds --help, the manual and --only/--skip validation.
 *
 * level: `required` cases decide the exit code: the consumer's store must end equal to the service.
 * `limitation` cases show what webhooks alone cannot bring (a change no webhook announced): not
 * converging there is the expected outcome, reported and never failed; converging is reported too.
 * `baseline` always runs first. Every case starts from a store equal to the service: after a case that
 * did not converge, the check brings the store back first, or reports the next cases as not run.
 *
 * Order matters where one bug fails several cases: each bug meets the case made for it before any
 * other it fails (the races before the burst, which catches them only by chance; deletions only in
 * retype-out-of-filter, whose bug leaves the store unequal for good).
 */
export const CONSUMER_CASE_TABLE = [
  {
    id: 'baseline',
    level: 'required',
    title: 'one ENTITY_UPDATE for the seeded data (three pages): the store starts equal to the service',
    catches: 'a consumer that reads only the first page of a list, or stores nothing',
  },
  {
    id: 'duplicate-immediate',
    level: 'required',
    title: 'the same delivery twice at once, after a change',
    catches:
      'a consumer that skips a body it has seen (every ENTITY_UPDATE of a user has the same body), or stores an item twice',
  },
  {
    id: 'duplicate-after-change',
    level: 'required',
    title: 'the same delivery again after its 2xx, the data changed in between (same bytes, same token)',
    catches: 'a consumer that skips a token it has seen: the same bytes can announce a new change',
  },
  {
    id: 'reverse-order',
    level: 'required',
    title: 'two deliveries of two changes, the later one first',
    catches: 'a consumer that ignores a delivery older (by iat) than one it handled',
  },
  {
    id: 'stale-page-after-change',
    level: 'required',
    title:
      "a read's answer held while the data change, then sent with its earlier lastUpdatedDate; the next delivery announces the change",
    catches: "a consumer that stores its own clock as lastUpdatedDate instead of the page's",
  },
  {
    id: 'change-during-fetch',
    level: 'required',
    title:
      "a change and its delivery while the consumer's read is held; the older answer is sent after the delivery's answer, and no delivery follows",
    catches:
      'a consumer that drops a delivery arriving during a read (no "read again" flag), or folds it into that read',
  },
  {
    id: 'overlapping-fetches',
    level: 'required',
    title: 'two changes and their deliveries answered while the first read is held; that read is answered last',
    catches:
      'a consumer that reads one dataset twice at once and lets the older answer land last (no lock, no ordering by lastUpdatedDate)',
  },
  {
    id: 'burst',
    level: 'required',
    title: 'a burst of deliveries for one user (500 by default), the data changing throughout',
    catches: 'a consumer that falls behind or loses a change under load',
  },
  {
    id: 'lost-webhook',
    level: 'limitation',
    title: 'the data change once the consumer has stopped reading, and no webhook is sent',
    catches: 'nothing to fix: converges only for a consumer that polls or reconciles on its own',
  },
  {
    id: 'retype-out-of-filter',
    level: 'required',
    title: 'an expense leaves type=PENDING and another is deleted: both must leave the store',
    catches: 'a consumer that ignores deletedIds',
  },
  {
    id: 'rate-limited',
    level: 'required',
    title: 'the API answers 429 with Retry-After in the middle of the read a delivery triggers',
    catches: 'a consumer that gives up a read, or skips a page, on 429',
  },
  {
    id: 'near-expiry',
    level: 'required',
    title: 'a delivery whose iat is one skew margin inside the tolerance',
    catches: 'a consumer that refuses a valid delivery near its tolerance (a shorter tolerance, a clock ahead)',
  },
] as const satisfies ReadonlyArray<{ id: string; level: 'required' | 'limitation'; title: string; catches: string }>;

export type ConsumerCaseId = (typeof CONSUMER_CASE_TABLE)[number]['id'];
export type ConsumerCaseLevel = (typeof CONSUMER_CASE_TABLE)[number]['level'];
export const CONSUMER_CASE_IDS: readonly string[] = CONSUMER_CASE_TABLE.map((c) => c.id);
