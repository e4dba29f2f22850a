import { join } from 'node:path';
import Conf from 'conf';
import { LedgerhookError } from '../errors.js';
import { defaultConfigDir } from './config-dir.js';
import type { EnvironmentName, EnvironmentSettings, SettingKey } from './environments.js';

/** Where settings live; tests (and users with several setups) move it with LEDGERHOOK_CONFIG_DIR. */
export interface SettingsStoreOptions {
  /** Directory of the settings file; defaults to the OS config directory for "ledgerhook". */
  dir?: string | undefined;
}

type SettingsShape = { environments: Partial<Record<EnvironmentName, EnvironmentSettings>> };

const FILE_NAME = 'settings';

/** conf validates the file against this before it writes anything: a wrong shape is refused, never "repaired". */
const SCHEMA = {
  environments: {
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOSPC', 'EISDIR']);

/** What went wrong with the settings file, in words that name the file. */
function settingsError(error: unknown, path: string): LedgerhookError {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code !== undefined && UNWRITABLE.has(code))
    return new LedgerhookError('ERR_IO', `cannot write the settings file ${path} (${code})`, {
      cause: error,
      details: { reason: 'settings_unwritable', path, errno: code },
    });
  if (error instanceof SyntaxError)
    return new LedgerhookError('ERR_IO', `the settings file ${path} is not valid JSON (${message})`, {
      cause: error,
      details: { reason: 'settings_invalid', path },
    });
  if (message.startsWith('Config schema violation'))
    return new LedgerhookError(
      'ERR_IO',
      `the settings file ${path} is JSON but not ledgerhook settings: it must be {"environments": {"sandbox": {"key": "value"}}}`,
      { cause: error, details: { reason: 'settings_invalid', path } },
    );
  return new LedgerhookError('ERR_IO', `cannot use the settings file ${path}: ${message}`, {
    cause: error,
    details: { reason: 'settings_invalid', path },
  });
}

/** Per-environment settings over conf: the file is written atomically and created mode 0600. */
export class SettingsStore {
  readonly path: string;
  readonly #conf: Conf<SettingsShape>;

  constructor(options: SettingsStoreOptions = {}) {
    const dir = options.dir ?? defaultConfigDir();
    this.path = join(dir, `${FILE_NAME}.json`);
    try {
      this.#conf = new Conf<SettingsShape>({
        cwd: dir,
        configName: FILE_NAME,
        projectSuffix: '',
        configFileMode: 0o600,
        schema: SCHEMA,
        defaults: { environments: {} },
      });
    } catch (error) {
      // conf refuses a file that is not valid JSON or not of our shape; we never overwrite the user's file silently.
      throw settingsError(error, this.path);
    }
  }

  environment(env: EnvironmentName): EnvironmentSettings {
    return { ...this.all()[env] };
  }

  all(): Partial<Record<EnvironmentName, EnvironmentSettings>> {
    try {
      return this.#conf.get('environments');
    } catch (error) {
      throw settingsError(error, this.path);
    }
  }

  get(env: EnvironmentName, key: SettingKey): string | undefined {
    return this.environment(env)[key];
  }

  set(env: EnvironmentName, key: SettingKey, value: string): void {
    const environments = this.all();
    this.#write({ ...environments, [env]: { ...environments[env], [key]: value } });
  }

  unset(env: EnvironmentName, key: SettingKey): boolean {
    const environments = this.all();
    const current = { ...environments[env] };
    if (!(key in current)) return false;
    delete current[key];
    this.#write({ ...environments, [env]: current });
    return true;
  }

  #write(environments: SettingsShape['environments']): void {
    try {
      this.#conf.set('environments', environments);
    } catch (error) {
      throw settingsError(error, this.path);
    }
  }
}
