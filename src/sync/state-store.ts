/** What is remembered of one dataset between runs (spec 4.3 rule 4: the lastUpdatedDate to send next). */
export interface SyncStateRecord {
  baseUrl: string;
  path: string;
  filter: Record<string, string>;
  /** Exactly as the server returned it: never the client's clock. */
  lastUpdatedDate: string;
  syncedAt: string;
  items: number;
  file: string;
  mode: 'full' | 'incremental';
}

/** Where sync state lives; conf by default (ConfStateStore), anything that keeps these records in tests. */
export interface SyncStateStore {
  get(key: string): SyncStateRecord | undefined;
  set(key: string, record: SyncStateRecord): void;
  delete(key: string): boolean;
  entries(): Array<[string, SyncStateRecord]>;
}

/** Keyed by base URL + path + sorted filter: the same dataset (spec 4.3 rule 6) on the same server. */
export function datasetKey(baseUrl: string, path: string, filter: Record<string, string> = {}): string {
  const query = new URLSearchParams(Object.entries(filter).sort(([a], [b]) => a.localeCompare(b))).toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${query ? `?${query}` : ''}`;
}

export class MemoryStateStore implements SyncStateStore {
  readonly #records = new Map<string, SyncStateRecord>();

  get(key: string): SyncStateRecord | undefined {
    return this.#records.get(key);
  }

  set(key: string, record: SyncStateRecord): void {
    this.#records.set(key, record);
  }

  delete(key: string): boolean {
    return this.#records.delete(key);
  }

  entries(): Array<[string, SyncStateRecord]> {
    return [...this.#records.entries()];
  }
}
