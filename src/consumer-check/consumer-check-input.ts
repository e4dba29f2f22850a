/**
 * What a check-consumer run is asked for, checked before anything starts: which cases run, and
 * whether its timings can work at all.
 */
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { usageError } from '../errors.js';
import { CONSUMER_CASE_IDS, CONSUMER_CASE_TABLE } from './consumer-case-table.js';

/** The rows to run: the baseline first whatever `only` says, less `skip`; an unknown id is a usage error. */
export function chooseCases(only: readonly string[] | undefined, skip: readonly string[] | undefined) {
  for (const id of [...(only ?? []), ...(skip ?? [])]) {
    if (!CONSUMER_CASE_IDS.includes(id))
      throw usageError(
        `unknown case "${id.slice(0, 60)}"${didYouMean(id, CONSUMER_CASE_IDS)}; cases: ${CONSUMER_CASE_IDS.join(', ')}`,
        'unknown_consumer_case',
        { id },
      );
  }
  if (skip?.includes('baseline'))
    throw usageError(
      'the baseline always runs first: every other case starts from its store',
      'unknown_consumer_case',
      {
        id: 'baseline',
      },
    );
  // The baseline runs whatever --only says: the other cases compare against a store that started equal.
  return CONSUMER_CASE_TABLE.filter(
    (c) => c.id === 'baseline' || ((!only?.length || only.includes(c.id)) && !skip?.includes(c.id)),
  );
}

/** duplicate-after-change sends a token again up to one settle time later: it must still be fresh then. */
export function checkTiming(settleMs: number, toleranceSeconds: number, skewSeconds: number, burst: number): void {
  if (!Number.isFinite(settleMs) || settleMs <= 0)
    throw usageError(`the settle time must be more than 0 ms, got ${settleMs}`, 'invalid_settle');
  if (skewSeconds < 0 || skewSeconds >= toleranceSeconds)
    throw usageError(
      `the skew (${skewSeconds} s) must be 0 or more and below the tolerance (${toleranceSeconds} s)`,
      'invalid_skew',
    );
  if (settleMs >= (toleranceSeconds - skewSeconds) * 1000)
    throw usageError(
      `the settle time must be shorter than the tolerance less the skew (${toleranceSeconds - skewSeconds} s): a delivery is sent again up to one settle time after it was signed`,
      'invalid_settle',
    );
  if (!Number.isInteger(burst) || burst < 1 || burst > 100_000)
    throw usageError(`the burst must be a whole number from 1 to 100000, got ${burst}`, 'invalid_flag_value');
}
