import { usageError } from '../errors.js';
import type { DatasetFlags } from './commands/sync/definition.js';
import type { CliContext } from './context.js';
import { readInputFile } from './read-input.js';
import { resolveToken } from './resolve-dataset.js';
import { resolveEnvironment, settingsStore } from './resolve-settings.js';

/**
 * userId → access token, from a JSON file (`listen --sync --tokens`, `worker --tokens`, the stored
 * tokensFile): tokens stay on this machine, out of shell history, process lists and Redis.
 */
export async function readTokenMap(path: string): Promise<Map<string, string>> {
  const text = (await readInputFile(path, 'token map')).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(
      `${path} is not JSON; it must map userId to access token: { "user_1": "token..." }`,
      'invalid_token_file',
    );
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((token) => typeof token === 'string' && token !== '')
  )
    throw usageError(
      `${path} must be a JSON object mapping userId to access token: { "user_1": "token..." }`,
      'invalid_token_file',
    );
  return new Map(Object.entries(value as Record<string, string>));
}

export type TokenFlags = DatasetFlags & {
  token?: string | undefined;
  tokenFile?: string | undefined;
  tokens?: string | undefined;
};

/** Several ways to give tokens at once is a usage error, said before anything is read. */
export function checkTokenFlags(flags: TokenFlags): void {
  if ([flags.tokens, flags.token, flags.tokenFile].filter((flag) => flag !== undefined).length > 1)
    throw usageError(
      'give one of --token or --token-file (one token for every user) or --tokens FILE (per user), not several',
      'conflicting_flags',
    );
}

/**
 * The access token of each user, for the commands that sync for many (listen --sync, worker):
 * --tokens FILE, then --token, --token-file or LEDGERHOOK_TOKEN (one for every user), then the
 * stored tokensFile, then the stored token (local: the mock's).
 */
export async function resolveTokenFor(
  flags: TokenFlags,
  ctx: CliContext,
): Promise<(userId: string) => string | undefined> {
  checkTokenFlags(flags);
  const tokensFile =
    flags.tokens ??
    (flags.token !== undefined || flags.tokenFile !== undefined || ctx.env.LEDGERHOOK_TOKEN
      ? undefined
      : (await settingsStore(ctx)).get(await resolveEnvironment(flags.env, ctx), 'tokensFile'));
  if (tokensFile) {
    const map = await readTokenMap(tokensFile);
    return (userId) => map.get(userId);
  }
  const token = await resolveToken(flags, ctx);
  return () => token;
}
