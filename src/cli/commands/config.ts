import { usageError } from '../../errors.js';
import { ENVIRONMENTS, isSettingKey, SETTING_KEYS, type SettingKey } from '../../settings/environments.js';
import { maskSecret } from '../../webhook/secrets.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { ConfigCommandOptions } from '../definitions/config.js';
import { readStream } from '../read-input.js';
import { resolveEnvironment, settingsStore } from '../resolve-settings.js';

function settingKey(key: string | undefined): SettingKey {
  if (key === undefined || !isSettingKey(key)) {
    throw usageError(`unknown setting "${key ?? ''}": use one of ${Object.keys(SETTING_KEYS).join(', ')}`);
  }
  return key;
}

/** Secrets and tokens are never shown, only their shape. */
function display(key: SettingKey, value: string): string {
  return SETTING_KEYS[key].secret ? maskSecret(value) : value;
}

async function valueFrom(raw: string | undefined, ctx: CliContext): Promise<string> {
  if (raw === undefined) throw usageError('config set needs a value');
  // `-` reads the value from stdin so that secrets stay out of shell history; the final newline is not part of it.
  const value = raw === '-' ? (await readStream(ctx.stdin)).toString('utf8').replace(/\r?\n$/, '') : raw;
  if (value === '') throw usageError('refusing to store an empty value; use `ledgerhook config unset` to remove a setting');
  return value;
}

function validate(key: SettingKey, value: string): void {
  if (key === 'baseUrl') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usageError(`baseUrl "${value}" is not a URL; e.g. https://sandbox.example.com/rest/v5`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`baseUrl must be http or https, got ${url.protocol}`);
  }
}

export async function run(options: ConfigCommandOptions, ctx: CliContext): Promise<void> {
  const store = await settingsStore(ctx);
  switch (options.action) {
    case 'path':
      writeLine(ctx.stdout, store.path);
      return;
    case 'list': {
      const all = store.all();
      const masked = Object.fromEntries(ENVIRONMENTS.map((env) => [env, Object.fromEntries(
        Object.entries(all[env] ?? {}).map(([key, value]) => [key, isSettingKey(key) ? display(key, value) : value]),
      )]));
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
      return;
    }
    case 'get': {
      const key = settingKey(options.key);
      const env = resolveEnvironment(options.env, ctx);
      const value = store.get(env, key);
      if (value === undefined) throw usageError(`${key} is not set for ${env}`);
      writeLine(ctx.stdout, display(key, value));
      return;
    }
    case 'set': {
      const key = settingKey(options.key);
      const env = resolveEnvironment(options.env, ctx);
      const value = await valueFrom(options.value, ctx);
      validate(key, value);
      store.set(env, key, value);
      writeLine(ctx.stderr, `set ${key} for ${env} (${display(key, value)})`);
      return;
    }
    case 'unset': {
      const key = settingKey(options.key);
      const env = resolveEnvironment(options.env, ctx);
      const removed = store.unset(env, key);
      writeLine(ctx.stderr, removed ? `unset ${key} for ${env}` : `${key} was not set for ${env}`);
    }
  }
}
