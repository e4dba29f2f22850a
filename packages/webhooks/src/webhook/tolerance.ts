import { DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { LedgerhookError } from '../errors.js';

/**
 * Why a value cannot be a freshness tolerance (spec 5.2 step 3), or undefined when it can; the one
 * rule for the library and every command's --tolerance: whole seconds, as iat and a token's age
 * are, and at least 1, since with 0 every delivery is expired (skipping the check is
 * `ignoreExpiry`, `--ignore-expiry`).
 */
export function toleranceProblem(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return undefined;
  return 'must be a whole number of seconds, 1 or more';
}

/** The tolerance to use (the default when none is given), or ERR_USAGE naming the option. */
export function validateTolerance(value: number | undefined, name = 'toleranceSeconds'): number {
  const seconds = value ?? DEFAULT_TOLERANCE_SECONDS;
  const problem = toleranceProblem(seconds);
  if (problem)
    throw new LedgerhookError('ERR_USAGE', `${name} ${problem}, got ${String(seconds)}`, {
      details: { reason: 'invalid_tolerance', value: seconds },
    });
  return seconds;
}
