import { usageError } from '../../../errors.js';
import { parseStatusList } from '../../../sync/resume.js';
import type { CliContext } from '../../context.js';
import { resolveEnvironment, settingsStore } from '../../resolve-settings.js';

/**
 * The `expiredCursorStatuses` setting of the environment (issue 21): which answers to a resumed
 * read's cursor mean the server no longer accepts it. Undefined leaves the library's default.
 */
export async function resolveExpiredCursorStatuses(
  flags: { env?: string | undefined },
  ctx: CliContext,
): Promise<readonly number[] | undefined> {
  const settings = (await settingsStore(ctx)).environment(await resolveEnvironment(flags.env, ctx));
  const value = settings.expiredCursorStatuses;
  if (value === undefined) return undefined;
  const statuses = parseStatusList(value);
  if (typeof statuses === 'string')
    throw usageError(
      `the stored expiredCursorStatuses "${value}" is not a list of 4xx statuses (${statuses}); set it again with \`ledgerhook config set expiredCursorStatuses 400,404,410\``,
      'invalid_setting',
    );
  return statuses;
}
