import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { usageError } from '../errors.js';
import { createRedactor, type Redactor } from '../redact/redactor.js';
import { type CliContext, writeLine } from './context.js';
import { keyFile } from './key-file.js';
import { settingsStore } from './resolve-settings.js';

/** Beside the settings, never in a recording or a capture: what makes a redacted value unreadable. */
export const REDACTION_KEY_FILE = 'redaction.key';

/**
 * `--redact`: the redactor of record, listen --capture and the inspector, keyed with the key kept in
 * the config directory (made on first use). One key per machine: equal values redacted on different
 * days, by different commands, still hash equal, so recordings and captures join.
 */
export async function resolveRedactor(fields: readonly string[] | undefined, ctx: CliContext): Promise<Redactor> {
  const file = join(dirname((await settingsStore(ctx)).path), REDACTION_KEY_FILE);
  const found = keyFile(file, 'redaction key', () => randomBytes(32).toString('hex'));
  if (found?.created)
    writeLine(
      ctx.stderr,
      ctx.color.dim(
        `created the redaction key in ${file}: it stays on this machine and is never written into a recording`,
      ),
    );
  if (!found || !/^[0-9a-f]{64}$/.test(found.value))
    throw usageError(
      `the redaction key ${file} is not 64 hex digits: remove it to have a new one made (values redacted before will no longer hash equal to new ones)`,
      'settings_invalid',
    );
  return createRedactor({ key: Buffer.from(found.value, 'hex'), fields });
}
