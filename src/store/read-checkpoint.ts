/**
 * Where an interrupted full read stands: the pages read so far are kept by the store
 * beside the data (a staging file, a staging table) and this record says how to go on. A later run
 * of the same dataset sends `cursor` and continues at page `pages + 1`; nothing of it is visible as
 * the dataset until the read's commit, which replaces data and state in one step like any full read's.
 */
import type { EnvelopeQuirk } from '../dataset/envelope.js';
import { isObject } from '../util/is-object.js';
import type { FullReadReason } from './dataset-store.js';

export interface ReadCheckpoint {
  /** Which read this is: a run whose server, owner, dataset, filter, token, limit or store differs never continues it. */
  baseUrl: string;
  userId: string;
  dataset: string;
  filter: Record<string, string>;
  tokenFingerprint: string;
  limit: number;
  /** The store's location when the read began (output directory, or database and schema). */
  location: string;
  /**
   * The committed state the read began over (`syncedAt lastUpdatedDate`), or null when there was
   * none: a commit since then (another run) makes the kept pages older than the dataset.
   */
  basedOn: string | null;
  /** Why the read is a full one, as its first run said. */
  fullReason: FullReadReason;
  /** The cursor of the last page kept: the next request sends it. */
  cursor: string;
  /** Pages and items kept (items as received, repeats included). */
  pages: number;
  items: number;
  /** The FIRST page's lastUpdatedDate: what the state records at commit, however many runs the read took. */
  lastUpdatedDate: string;
  quirks: EnvelopeQuirk[];
  /** When the last page was kept (ISO). */
  savedAt: string;
}

/** A checkpoint a run has taken for itself: no other run continues or discards it meanwhile. */
export interface TakenCheckpoint {
  /** The read to continue, or undefined when its record cannot be read. */
  readonly checkpoint: ReadCheckpoint | undefined;
  /** Why the kept pages cannot be continued (they no longer match the record, or it cannot be read). */
  readonly damaged?: string | undefined;
  /** Drops the record and the pages kept with it. */
  discard(): Promise<void>;
  /** Leaves it as it is, for a later run. */
  release(): Promise<void>;
}

export interface FullLoadOptions {
  /** Keep the pages where a later run can continue them (`FullLoad.checkpoint` makes them durable). */
  resumable?: boolean | undefined;
  /** Continue the pages of this taken checkpoint (implies resumable). */
  resume?: TakenCheckpoint | undefined;
}

const FULL_READ_REASONS = new Set(['first-sync', 'requested', 'data-missing', 'token-changed']);
const QUIRKS = new Set(['cursor-null', 'cursor-empty']);
const STRINGS = [
  'baseUrl',
  'userId',
  'dataset',
  'tokenFingerprint',
  'location',
  'cursor',
  'lastUpdatedDate',
  'savedAt',
];
const COUNTS = ['limit', 'pages', 'items'];

/** A checkpoint read back from a file or a row is checked field by field: it is input like any other. */
export function isReadCheckpoint(value: unknown): value is ReadCheckpoint {
  return (
    isObject(value) &&
    STRINGS.every((key) => typeof value[key] === 'string') &&
    COUNTS.every((key) => Number.isSafeInteger(value[key]) && (value[key] as number) >= 0) &&
    isObject(value.filter) &&
    Object.values(value.filter).every((entry) => typeof entry === 'string') &&
    (value.basedOn === null || typeof value.basedOn === 'string') &&
    typeof value.fullReason === 'string' &&
    FULL_READ_REASONS.has(value.fullReason) &&
    Array.isArray(value.quirks) &&
    value.quirks.every((quirk) => typeof quirk === 'string' && QUIRKS.has(quirk))
  );
}
