import { entityPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { resolveEntityName } from '../catalogue/resolve.js';
import { dirname, join, resolve } from 'node:path';
import { errnoSentence, makeDirectory } from '../util/fs-errors.js';
import { usageError } from '../errors.js';
import { parseStatusList } from '../sync/expired-cursor.js';
import type { FileStore } from '../store/file/file-store.js';
import type { CliContext } from './context.js';
import type { DatasetFlags } from './commands/sync/definition.js';
import { announceLocal, LOCAL_BASE_URL, LOCAL_TOKEN, mockAnswers } from './local-environment.js';
import { readInputFile } from './read-input.js';
import { resolveEnvironment, settingsStore } from './resolve-settings.js';

/**
 * An entity name (any case, singular or plural), requested at its stored path override or the
 * catalogue's, or a path starting with /.
 */
export function resolveDatasetPath(target: string, paths?: EntityPaths): string {
  const trimmed = target.trim();
  if (trimmed.startsWith('/')) {
    if (!/^\/[A-Za-z0-9_\-/.]*$/.test(trimmed) || trimmed.includes('..'))
      throw usageError(`"${target}" is not a usable path`, 'invalid_dataset_path');
    return trimmed.replace(/\/+$/, '') || '/';
  }
  return entityPath(resolveEntityName(trimmed), paths);
}

/** --type T and --filter k=v, as one query-parameter map. */
export function resolveFilter(flags: DatasetFlags): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const entry of flags.filter ?? []) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw usageError(`--filter takes key=value, got "${entry}"`, 'invalid_flag_value');
    filter[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  if (flags.type !== undefined) {
    if (flags.type.trim() === '') throw usageError('--type is empty', 'invalid_flag_value');
    if (filter.type !== undefined && filter.type !== flags.type)
      throw usageError('--type and --filter type=... disagree', 'invalid_flag_value');
    filter.type = flags.type;
  }
  return filter;
}

function validateBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`base URL "${value}" is not a URL, e.g. https://sandbox.example.com/rest/v5`, 'invalid_base_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`base URL must be http or https, got ${url.protocol}`, 'invalid_base_url');
  return value.replace(/\/+$/, '');
}

/** Where a value a command uses came from (`ledgerhook status` says it, never the value). */
export type SettingSource = 'flag' | 'variable' | 'settings' | 'built in';

/**
 * One value a command uses, in the one order: its flag, its LEDGERHOOK_ variable, the environment's
 * stored setting, then (local only) the built-in one, with where it came from.
 */
async function findSetting(
  given: { flag: string | undefined; variable: string; key: 'baseUrl' | 'token'; builtIn: string },
  env: string | undefined,
  ctx: CliContext,
): Promise<{ value: string; from: SettingSource } | undefined> {
  if (given.flag) return { value: given.flag, from: 'flag' };
  const variable = ctx.env[given.variable];
  if (variable) return { value: variable, from: 'variable' };
  const name = await resolveEnvironment(env, ctx);
  const stored = (await settingsStore(ctx)).get(name, given.key);
  if (stored) return { value: stored, from: 'settings' };
  return name === 'local' ? { value: given.builtIn, from: 'built in' } : undefined;
}

/** --base-url, then LEDGERHOOK_BASE_URL, then the stored baseUrl of the environment, then local's built-in one. */
export function findBaseUrl(flags: DatasetFlags, ctx: CliContext) {
  const given = {
    flag: flags.baseUrl,
    variable: 'LEDGERHOOK_BASE_URL',
    key: 'baseUrl',
    builtIn: LOCAL_BASE_URL,
  } as const;
  return findSetting(given, flags.env, ctx);
}

/** The base URL (findBaseUrl), checked; local's built-in one is announced (once per configuration). */
export async function resolveBaseUrl(
  flags: DatasetFlags,
  ctx: CliContext,
  required = true,
): Promise<string | undefined> {
  const found = await findBaseUrl(flags, ctx);
  if (found?.from === 'built in') {
    announceLocal(ctx, `ledgerhook mock at ${LOCAL_BASE_URL}`);
    return LOCAL_BASE_URL;
  }
  if (found) return validateBaseUrl(found.value);
  const env = await resolveEnvironment(flags.env, ctx);
  if (!required) return undefined;
  // Said exactly when it would work: the mock is answering on its default port right now.
  const mockUp = await mockAnswers();
  throw usageError(
    `no base URL for ${env}: pass --base-url, set LEDGERHOOK_BASE_URL or \`ledgerhook config set baseUrl URL --env ${env}\`${
      mockUp
        ? `; ledgerhook mock is answering at ${LOCAL_BASE_URL}: add --env local to use it`
        : '; to try it locally, run `ledgerhook mock` and add --env local'
    }`,
    'missing_base_url',
  );
}

/** --token, then LEDGERHOOK_TOKEN, then the stored token of the environment, then local's built-in one (the mock's). */
export function findToken(flags: DatasetFlags & { token?: string | undefined }, ctx: CliContext) {
  const given = { flag: flags.token, variable: 'LEDGERHOOK_TOKEN', key: 'token', builtIn: LOCAL_TOKEN } as const;
  return findSetting(given, flags.env, ctx);
}

/**
 * An access token kept in a file (out of shell history and process lists): the token alone, on one
 * line; surrounding whitespace is dropped. A bearer token holds no space, so one inside means the
 * file holds something else (a note, two tokens, a token map).
 */
export async function readTokenFile(path: string): Promise<string> {
  const text = (await readInputFile(path, 'token file')).toString('utf8').trim();
  if (text === '' || /\s/.test(text))
    throw usageError(
      `the token file ${path} ${text === '' ? 'is empty' : 'holds more than a token'}: it must hold the access token alone (one line, no spaces)`,
      'invalid_token_file',
    );
  return text;
}

/** --token, --token-file, then LEDGERHOOK_TOKEN, then the stored token of the environment. */
export async function resolveToken(
  flags: DatasetFlags & { token?: string | undefined; tokenFile?: string | undefined },
  ctx: CliContext,
): Promise<string> {
  if (flags.token !== undefined && flags.tokenFile !== undefined)
    throw usageError('give --token or --token-file, not both', 'conflicting_flags');
  if (flags.tokenFile !== undefined) return readTokenFile(flags.tokenFile);
  const found = await findToken(flags, ctx);
  if (found) return found.value;
  throw usageError(
    'no access token: pass --token or --token-file, set LEDGERHOOK_TOKEN or `ledgerhook config set token -` (the mock accepts ledgerhook-mock-token)',
    'missing_access_token',
  );
}

/** The sync state file: `state.json` beside the settings (LEDGERHOOK_CONFIG_DIR when set). */
export async function stateFilePath(ctx: CliContext): Promise<string> {
  return join(dirname((await settingsStore(ctx)).path), 'state.json');
}

/** The file store the CLI syncs into: data files under `outDir`, state beside the settings. */
/** Makes the output directory, or says which part of --out cannot be one (before any request is made). */
export function prepareOutDir(outDir: string): void {
  try {
    makeDirectory(outDir);
  } catch (error) {
    const at = (error as { path?: string }).path;
    throw usageError(
      `cannot use --out ${outDir}: ${at && at !== resolve(outDir) ? `${at}: ` : ''}${errnoSentence(error)}; choose a writable directory with --out`,
      'out_dir_unusable',
    );
  }
}

export async function fileStore(
  ctx: CliContext,
  outDir: string,
  options: { create?: boolean; historyDays?: number } = {},
): Promise<FileStore> {
  // A wrong --out costs nothing: found before any request.
  if (options.create) prepareOutDir(outDir);
  const { FileStore } = await import('../store/file/file-store.js');
  return new FileStore({ outDir, stateFile: await stateFilePath(ctx), historyDays: options.historyDays });
}

/**
 * The `expiredCursorStatuses` setting of the environment: which answers to a resumed
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
