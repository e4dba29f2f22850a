import Conf from 'conf';
import { LedgerhookError } from '../errors.js';
import type { SyncStateRecord, SyncStateStore } from './state-store.js';

/** Sync state in conf (`state.json` beside the settings): written atomically, created mode 0600. */
export class ConfStateStore implements SyncStateStore {
  readonly #conf: Conf<{ datasets: Record<string, SyncStateRecord> }>;

  constructor(options: { dir?: string } = {}) {
    try {
      this.#conf = new Conf({
        projectName: 'ledgerhook',
        projectSuffix: '',
        configName: 'state',
        ...(options.dir ? { cwd: options.dir } : {}),
        configFileMode: 0o600,
        // Keys are URLs: their dots are not paths into the object.
        accessPropertiesByDotNotation: false,
        defaults: { datasets: {} },
      });
    } catch (error) {
      throw new LedgerhookError('ERR_IO', `cannot read the sync state file: ${(error as Error).message}; fix it or move it away (the next sync is then a full one)`, { cause: error });
    }
  }

  get path(): string {
    return this.#conf.path;
  }

  get(key: string): SyncStateRecord | undefined {
    return this.#conf.get('datasets')[key];
  }

  set(key: string, record: SyncStateRecord): void {
    this.#conf.set('datasets', { ...this.#conf.get('datasets'), [key]: record });
  }

  delete(key: string): boolean {
    const datasets = { ...this.#conf.get('datasets') };
    if (!(key in datasets)) return false;
    delete datasets[key];
    this.#conf.set('datasets', datasets);
    return true;
  }

  entries(): Array<[string, SyncStateRecord]> {
    return Object.entries(this.#conf.get('datasets'));
  }
}
