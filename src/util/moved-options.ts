import { usageError } from '../errors.js';

/**
 * Refuses an option given at the top level of a bag whose groups now hold it. TypeScript catches a
 * literal, not an object built beforehand or plain JavaScript, and a key passed flat would be ignored
 * silently: a listener's `secrets` so, and nothing would be verified.
 */
export function refuseMovedOptions(options: object, moved: Readonly<Record<string, string>>, what: string): void {
  for (const key of Object.keys(options)) {
    const to = Object.hasOwn(moved, key) ? moved[key] : undefined;
    if (to !== undefined)
      throw usageError(`${what}: the option ${key} is given as ${to}`, 'option_moved', { option: key, to });
  }
}
