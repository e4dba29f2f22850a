import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LedgerhookError } from '../errors.js';
import { errnoSentence, makeDirectory } from '../util/fs-errors.js';

/**
 * A secret of ledgerhook's own making, in a file of its own beside the settings (mode 0600): read, or
 * made on first use when `make` is given. 'wx': two commands starting at once never make two; the
 * second reads the first's. `created` says this call made it (the caller may tell the user once).
 */
export function keyFile(
  file: string,
  what: string,
  make: (() => string) | undefined,
): { value: string; created: boolean } | undefined {
  const read = () => {
    try {
      const value = readFileSync(file, 'utf8').trim();
      return value === '' ? undefined : value;
    } catch {
      return undefined;
    }
  };
  const existing = read();
  if (existing || !make) return existing === undefined ? undefined : { value: existing, created: false };
  let created = false;
  try {
    makeDirectory(dirname(file));
    writeFileSync(file, `${make()}\n`, { flag: 'wx', mode: 0o600 });
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new LedgerhookError('ERR_USAGE', `cannot create the ${what} ${file}: ${errnoSentence(error)}`, {
        cause: error,
        details: { reason: 'settings_unwritable', path: file },
      });
  }
  const value = read();
  return value === undefined ? undefined : { value, created };
}
