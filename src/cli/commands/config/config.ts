import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../errors.js';
import { ENTITY_NAMES } from '@ledgerhook/webhooks';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { checkEntityPath } from '../../../catalogue/entity-paths.js';
import { API_ROOT_PATH, lacksApiVersion, withApiRoot } from '../../../catalogue/api-root.js';
import {
  ENVIRONMENTS,
  type EnvironmentName,
  isEnvironmentName,
  isPathSettingKey,
  isSecretSetting,
  isSettingKey,
  PATH_SETTING_PREFIX,
  SETTING_KEYS,
  type SettingKey,
} from '../../../settings/environments.js';
import { maskSecret } from '@ledgerhook/webhooks/advanced';
import { validateVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import { parseStatusList } from '../../../sync/expired-cursor.js';
import { isServiceSettingKey, serviceSettingProblem } from '../../../settings/setting-values.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { ConfigCommandOptions } from './definition.js';
import { promptHidden } from '../../prompt-hidden.js';
import { readStream, withoutTrailingLineBreaks } from '../../read-input.js';
import { settingsStore, validateHeaderName } from '../../resolve-settings.js';

function settingKey(key: string | undefined): SettingKey {
  if (key === undefined || !isSettingKey(key)) {
    if (key?.startsWith(PATH_SETTING_PREFIX))
      throw usageError(
        `unknown entity in "${key}"${didYouMean(key.slice(PATH_SETTING_PREFIX.length), ENTITY_NAMES)}: \`ledgerhook entities\` lists them`,
        'invalid_setting',
      );
    throw usageError(
      `unknown setting "${key ?? ''}"${didYouMean(key ?? '', Object.keys(SETTING_KEYS))}: use one of ${Object.keys(SETTING_KEYS).join(', ')}, or paths.ENTITY`,
      'invalid_setting',
    );
  }
  return key;
}

/** Secrets and tokens are never shown, only their shape. */
function display(key: SettingKey, value: string): string {
  return isSecretSetting(key) ? maskSecret(value) : value;
}

/**
 * The value to store: `-` reads stdin; no value prompts with hidden input on a terminal (secrets
 * only); a secret typed in argv is stored but warned about, since it is now in the shell history.
 */
async function valueFrom(key: SettingKey, raw: string | undefined, env: string, ctx: CliContext): Promise<string> {
  const secret = isSecretSetting(key);
  let value: string;
  if (raw === '-') {
    // The line breaks at the end of a file or an echo are not part of the value.
    value = withoutTrailingLineBreaks((await readStream(ctx.stdin)).toString('utf8'));
  } else if (raw !== undefined) {
    value = raw;
    if (secret)
      writeLine(
        ctx.stderr,
        `${ctx.color.yellow('warning:')} the ${key} given on the command line is now in your shell history; next time use \`ledgerhook config set ${key} -\` (stdin) or give no value on a terminal`,
      );
  } else if (!secret) {
    throw usageError(
      `config set ${key} needs a value, e.g. ${key === 'headerName' ? 'Acme-Verification' : '...'}`,
      'invalid_setting',
    );
  } else if (ctx.stdin.isTTY && ctx.stderr.isTTY) {
    value = await promptHidden(`${key} for ${env} (input hidden): `, ctx.stdin, ctx.stderr);
  } else {
    throw usageError(
      `config set ${key} needs a value and there is no terminal to ask on: pipe it on stdin with \`ledgerhook config set ${key} - < FILE\`, or run it on a terminal to be prompted`,
      'invalid_setting',
    );
  }
  if (value.trim() === '')
    throw usageError(
      `refusing to store an ${value === '' ? 'empty' : 'all-whitespace'} value; use \`ledgerhook config unset\` to remove a setting`,
      'invalid_setting',
    );
  return value;
}

/** Checks a value before it is stored, and returns it as it will be stored. */
function validate(key: SettingKey, value: string): string {
  if (key === 'baseUrl') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usageError(`baseUrl "${value}" is not a URL; e.g. https://sandbox.example.com/rest/v5`, 'invalid_base_url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw usageError(`baseUrl must be http or https, got ${url.protocol}`, 'invalid_base_url');
  }
  if (key === 'headerName') return validateHeaderName(value.trim());
  if (key === 'verificationPrefix') return validateVerificationPrefix(value);
  if (key === 'expiredCursorStatuses') {
    const statuses = parseStatusList(value);
    if (typeof statuses === 'string')
      throw usageError(`expiredCursorStatuses takes 4xx statuses such as 400,404,410: ${statuses}`, 'invalid_setting');
    return statuses.join(',');
  }
  if (isPathSettingKey(key)) return checkEntityPath(value, key.slice(PATH_SETTING_PREFIX.length));
  if (isServiceSettingKey(key)) {
    const problem = serviceSettingProblem(key, value);
    if (problem !== undefined) throw usageError(`${key}: ${problem}`, 'invalid_setting');
    return value.trim();
  }
  if (key === 'tokensFile') {
    // Stored absolute: a relative path would mean another file from another directory.
    const path = resolve(value);
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      throw usageError(
        `tokensFile ${path} does not exist; create the JSON file mapping userId to token first`,
        'invalid_token_file',
      );
    }
    if (!isFile) throw usageError(`tokensFile ${path} is not a file`, 'invalid_token_file');
    return path;
  }
  return value;
}

/** config reads and writes sandbox unless told otherwise (the local default is for using, not configuring). */
function configEnvironment(flag: string | undefined, ctx: CliContext): EnvironmentName {
  const value = flag ?? ctx.env.LEDGERHOOK_ENV ?? 'sandbox';
  if (!isEnvironmentName(value))
    throw usageError(`unknown environment "${value}": use ${ENVIRONMENTS.join(', ')}`, 'unknown_environment');
  return value;
}

async function list(
  options: Pick<Extract<ConfigCommandOptions, { action: 'list' }>, 'json'>,
  ctx: CliContext,
): Promise<void> {
  const store = await settingsStore(ctx);
  const all = store.all();
  const masked = Object.fromEntries(
    ENVIRONMENTS.map((env) => [
      env,
      Object.fromEntries(
        Object.entries(all[env] ?? {}).map(([key, value]) => [key, isSettingKey(key) ? display(key, value) : value]),
      ),
    ]),
  );
  if (options.json) {
    writeJson(ctx, { path: store.path, environments: masked });
    return;
  }
  writeLine(ctx.stdout, ctx.color.dim(store.path));
  for (const env of ENVIRONMENTS) {
    writeLine(ctx.stdout, ctx.color.bold(env));
    const entries = Object.entries(masked[env] ?? {});
    if (entries.length === 0) writeLine(ctx.stdout, ctx.color.dim('  (nothing set)'));
    for (const [key, value] of entries) writeLine(ctx.stdout, `  ${key.padEnd(14)}${value}`);
  }
}

export async function run(options: ConfigCommandOptions, ctx: CliContext): Promise<void> {
  switch (options.action) {
    case 'path':
      writeLine(ctx.stdout, (await settingsStore(ctx)).path);
      return;
    case 'list':
      return list(options, ctx);
    case 'get': {
      const key = settingKey(options.key);
      const env = configEnvironment(options.env, ctx);
      const value = (await settingsStore(ctx)).get(env, key);
      if (value === undefined) throw usageError(`${key} is not set for ${env}`, 'setting_not_set');
      writeLine(ctx.stdout, display(key, value));
      return;
    }
    case 'set': {
      const key = settingKey(options.key);
      const env = configEnvironment(options.env, ctx);
      const store = await settingsStore(ctx, 'write');
      const value = validate(key, await valueFrom(key, options.value, env, ctx));
      store.set(env, key, value);
      writeLine(ctx.stderr, `set ${key} for ${env} (${display(key, value)})`);
      // Stored as given (the real service may differ from the spec's samples), but the usual slip is said.
      if (key === 'baseUrl' && lacksApiVersion(value))
        writeLine(
          ctx.stderr,
          `${ctx.color.yellow('warning:')} ${value} has no /rest/vN segment: the service's lists are usually under ${API_ROOT_PATH}; if so, run \`ledgerhook config set baseUrl ${withApiRoot(value)}${env === 'sandbox' ? '' : ` --env ${env}`}\``,
        );
      return;
    }
    case 'unset': {
      const key = settingKey(options.key);
      const env = configEnvironment(options.env, ctx);
      const removed = (await settingsStore(ctx, 'write')).unset(env, key);
      writeLine(ctx.stderr, removed ? `unset ${key} for ${env}` : `${key} was not set for ${env}`);
    }
  }
}
