import Conf from 'conf';
import { LedgerhookError } from '../errors.js';
import type { EnvironmentName, EnvironmentSettings, SettingKey } from './environments.js';

/** Where settings live; tests (and users with several setups) move it with LEDGERHOOK_CONFIG_DIR. */
export interface SettingsStoreOptions {
  /** Directory of the settings file; defaults to the OS config directory for "ledgerhook". */
  dir?: string;
}

type SettingsShape = { environments: Partial<Record<EnvironmentName, EnvironmentSettings>> };

/** Per-environment settings over conf: the file is written atomically and created mode 0600. */
export class SettingsStore {
  readonly #conf: Conf<SettingsShape>;

  constructor(options: SettingsStoreOptions = {}) {
    try {
      this.#conf = new Conf<SettingsShape>({
        projectName: 'ledgerhook',
        projectSuffix: '',
        configName: 'settings',
        ...(options.dir ? { cwd: options.dir } : {}),
        configFileMode: 0o600,
        defaults: { environments: {} },
      });
    } catch (error) {
      // conf refuses a file that is not valid JSON; we never overwrite the user's file silently.
      throw new LedgerhookError('ERR_IO', `cannot read the settings file in ${options.dir ?? 'the ledgerhook config directory'}: ${(error as Error).message}; fix it or move it away`, { cause: error });
    }
  }

  get path(): string {
    return this.#conf.path;
  }

  environment(env: EnvironmentName): EnvironmentSettings {
    return { ...(this.#conf.get('environments')[env] ?? {}) };
  }

  all(): Partial<Record<EnvironmentName, EnvironmentSettings>> {
    return this.#conf.get('environments');
  }

  get(env: EnvironmentName, key: SettingKey): string | undefined {
    return this.environment(env)[key];
  }

  set(env: EnvironmentName, key: SettingKey, value: string): void {
    const environments = this.#conf.get('environments');
    this.#conf.set('environments', { ...environments, [env]: { ...(environments[env] ?? {}), [key]: value } });
  }

  unset(env: EnvironmentName, key: SettingKey): boolean {
    const environments = this.#conf.get('environments');
    const current = { ...(environments[env] ?? {}) };
    if (!(key in current)) return false;
    delete current[key];
    this.#conf.set('environments', { ...environments, [env]: current });
    return true;
  }
}
