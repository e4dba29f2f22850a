import { readFileSync } from 'node:fs';
import { errnoSentence, makeDirectory } from '../util/fs-errors.js';
import { join } from 'node:path';
import type Conf from 'conf';
import { LedgerhookError } from '../errors.js';
import { defaultConfigDir } from './config-dir.js';
import type { EnvironmentName, EnvironmentSettings, SettingKey } from './environments.js';

/** Where settings live; tests (and users with several setups) move it with LEDGERHOOK_CONFIG_DIR. */
export interface SettingsStoreOptions {
  /** Directory of the settings file; defaults to the OS config directory for "ledgerhook". */
  dir?: string | undefined;
}

type SettingsShape = {
  environments: Partial<Record<EnvironmentName, EnvironmentSettings>>;
  /** Per environment, what `ledgerhook probe --write` last found and wrote (its own shape, src/probe/). */
  probes?: Partial<Record<EnvironmentName, unknown>>;
};

const FILE_NAME = 'settings';

/** conf validates the file against this before it writes anything: a wrong shape is refused, never "repaired". */
const SCHEMA = {
  environments: {
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
  },
  probes: { type: 'object', additionalProperties: { type: 'object' } },
} as const;

const UNWRITABLE = new Set([
  'ENOENT',
  'ENOTCREATABLE',
  'EISFILE',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EEXIST',
  'ENOSPC',
  'EISDIR',
]);

/** What went wrong with the settings file, in words that name the file. */
function settingsError(error: unknown, path: string): LedgerhookError {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code !== undefined && UNWRITABLE.has(code))
    return new LedgerhookError('ERR_IO', `cannot write the settings file ${path}: ${errnoSentence(error)}`, {
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

/** The same shape SCHEMA describes, checked without ajv: an object of objects of strings. */
function isSettingsShape(value: unknown): value is SettingsShape {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const probes = (value as { probes?: unknown }).probes;
  if (probes !== undefined && (typeof probes !== 'object' || probes === null || Array.isArray(probes))) return false;
  const environments = (value as { environments?: unknown }).environments;
  if (environments === undefined) return true;
  if (typeof environments !== 'object' || environments === null || Array.isArray(environments)) return false;
  return Object.values(environments).every(
    (settings) =>
      typeof settings === 'object' &&
      settings !== null &&
      !Array.isArray(settings) &&
      Object.values(settings).every((setting) => typeof setting === 'string'),
  );
}

/** Reads the file as conf would, refusing what conf would refuse; no file holds nothing. */
function readSettingsFile(path: string): SettingsShape {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { environments: {} };
    throw settingsError(error, path);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw settingsError(error, path);
  }
  if (!isSettingsShape(parsed)) throw settingsError(new Error('Config schema violation'), path);
  return { environments: parsed.environments ?? {}, probes: parsed.probes ?? {} };
}

/**
 * Per-environment settings. Commands that only read (nearly all) read the JSON file directly;
 * `set` and `unset` go through conf, which writes atomically, creates the file mode 0600 and
 * validates against SCHEMA. conf (with ajv) costs ~100 ms of CPU to load, so only writers pay it.
 */
export class SettingsStore {
  readonly path: string;
  readonly #conf: Conf<SettingsShape> | undefined;
  /** What a store opened for reading read when it was opened. */
  readonly #read: SettingsShape;

  private constructor(path: string, conf: Conf<SettingsShape> | undefined, read: SettingsShape = { environments: {} }) {
    this.path = path;
    this.#conf = conf;
    this.#read = read;
  }

  /** False for a store opened for reading. */
  get writable(): boolean {
    return this.#conf !== undefined;
  }

  /** `write` opens conf, so that set and unset can create or change the file. */
  static async open(options: SettingsStoreOptions = {}, mode: 'read' | 'write' = 'read'): Promise<SettingsStore> {
    const dir = options.dir ?? defaultConfigDir();
    const path = join(dir, `${FILE_NAME}.json`);
    if (mode === 'read') {
      // A damaged file is reported when it is opened, as conf does.
      return new SettingsStore(path, undefined, readSettingsFile(path));
    }
    const { default: Conf } = await import('conf');
    try {
      // Before conf, whose recursive mkdir would spin where a directory cannot be made (e.g. under /proc).
      makeDirectory(dir);
      const conf = new Conf<SettingsShape>({
        cwd: dir,
        configName: FILE_NAME,
        projectSuffix: '',
        configFileMode: 0o600,
        schema: SCHEMA,
        defaults: { environments: {} },
      });
      return new SettingsStore(path, conf);
    } catch (error) {
      // conf refuses a file that is not valid JSON or not of our shape; we never overwrite the user's file silently.
      throw settingsError(error, path);
    }
  }

  environment(env: EnvironmentName): EnvironmentSettings {
    return { ...this.all()[env] };
  }

  all(): Partial<Record<EnvironmentName, EnvironmentSettings>> {
    return this.#whole().environments;
  }

  /** What `probe --write` recorded for the environment, as it was written (its reader checks it). */
  probeRecord(env: EnvironmentName): unknown {
    return this.#whole().probes?.[env];
  }

  /**
   * Sets several settings of one environment and records the probe that chose them, in one write:
   * the file never holds the settings without the record of who wrote them, or the other way round.
   */
  applyProbe(env: EnvironmentName, settings: EnvironmentSettings, record: object): void {
    const whole = this.#whole();
    const environments = { ...whole.environments, [env]: { ...whole.environments[env], ...settings } };
    this.#write({ ...whole, environments, probes: { ...whole.probes, [env]: record } });
  }

  #whole(): SettingsShape {
    if (!this.#conf) return this.#read;
    try {
      const store = this.#conf.store;
      return { ...store, environments: store.environments ?? {} };
    } catch (error) {
      throw settingsError(error, this.path);
    }
  }

  get(env: EnvironmentName, key: SettingKey): string | undefined {
    return this.environment(env)[key];
  }

  set(env: EnvironmentName, key: SettingKey, value: string): void {
    const whole = this.#whole();
    const environments = whole.environments;
    this.#write({ ...whole, environments: { ...environments, [env]: { ...environments[env], [key]: value } } });
  }

  unset(env: EnvironmentName, key: SettingKey): boolean {
    const whole = this.#whole();
    const current = { ...whole.environments[env] };
    if (!(key in current)) return false;
    delete current[key];
    this.#write({ ...whole, environments: { ...whole.environments, [env]: current } });
    return true;
  }

  /** The whole file in one write (conf writes it atomically, mode 0600, checked against SCHEMA). */
  #write(whole: SettingsShape): void {
    if (!this.#conf) throw new Error('settings opened for reading cannot be written');
    try {
      this.#conf.store = whole;
    } catch (error) {
      throw settingsError(error, this.path);
    }
  }
}
