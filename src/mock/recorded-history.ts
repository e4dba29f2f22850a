import { isDeepStrictEqual } from 'node:util';
import type { CaptureRecord } from '../capture/capture-record.js';
import { SAMPLE_LIST_PATH } from '@ledgerhook/webhooks/advanced';
import { entityAtPath } from '../catalogue/entity-paths.js';
import type { Recording } from '../record/read-recording.js';
import { firstIndex } from '../util/first-index.js';
import { parseWebhookBody, type WebhookBodyObject } from '@ledgerhook/webhooks';
import type { Granularity, SinceBoundary } from './mock-types.js';
import { boundaryOf } from './paging.js';
import { RecordedDataset } from './recorded-dataset.js';
import {
  assembleReads,
  type DatasetReads,
  type LearnedQuirks,
  type RecordedAnswer,
  type RecordedRead,
} from './recorded-reads.js';

/**
 * A recording as a story the mock tells again: each dataset's versions (the first read, then what each
 * later read revealed), when each becomes visible (just before the webhook that announced it, else
 * when it was read), and the webhooks to send again, all in the recorded order.
 */

export interface RecordedVersion {
  /**
   * The time its changes carry, in ms: the service's lastUpdatedDate, moved past the boundary of the
   * lastUpdatedDate its read sent, so that the same request gets the same changes again.
   */
  changeTime: number;
  /** The lastUpdatedDate reported for the dataset from this version on, as the service wrote it. */
  reported: string;
  /** The read that revealed it (sequence, time in ms). */
  readSeq: number;
  readAt: number;
  /** The delivery that announced it, when one did. */
  announcedBy?: string | undefined;
  /** Reads of its dataset recorded before it became visible (the read after them revealed it). */
  readsBefore: number;
  /** A document (a dataset that does not page, e.g. /userTaxSetup). */
  document?: unknown;
  changed: number;
  deleted: number;
}

export interface ServedDataset {
  key: string;
  path: string;
  entity: string | undefined;
  /** The items, for a list; undefined for a document or a path that only answered errors. */
  dataset: RecordedDataset | undefined;
  /** [0] stands from the start. */
  versions: RecordedVersion[];
  faults: Array<RecordedAnswer | undefined>;
  error: RecordedAnswer | undefined;
}

export type StoryStep =
  | {
      kind: 'change';
      seq: number;
      at: number;
      key: string;
      version: number;
      /** Reads of the dataset the recording shows before this change: it waits for the consumer's. */
      readsBefore: number;
    }
  | { kind: 'webhook'; seq: number; at: number; record: CaptureRecord; body: Buffer; parsed: WebhookBodyObject };

export interface RecordedHistory {
  datasets: Map<string, ServedDataset>;
  quirks: LearnedQuirks;
  /** The precision and boundary the change times were placed with (and requests are compared with). */
  granularity: Granularity;
  since: SinceBoundary;
  steps: StoryStep[];
  /** The recording's first event, in ms: every step is timed from it. */
  origin: number;
  /** The recording began with a read: the story starts with the first request. */
  startsWithRead: boolean;
  /** Deliveries not sent again: refused or not verified at receipt, or whose body was not kept. */
  skippedDeliveries: number;
  warnings: string[];
}

export interface HistoryOptions {
  since?: SinceBoundary | undefined;
  /** Default: what the recording shows (whole seconds when every lastUpdatedDate is). */
  granularity?: Granularity | undefined;
}

function listVersions(reads: readonly RecordedRead[], place: (since: string | null) => number) {
  const dataset = new RecordedDataset();
  const versions: RecordedVersion[] = [];
  const [first, ...rest] = reads as [RecordedRead, ...RecordedRead[]];
  const base = { readSeq: first.startSeq, readAt: first.startAt, changed: 0, deleted: 0, readsBefore: 0 };
  if (first.since === null) {
    for (const item of first.items) dataset.put(dataset.baseTime, item);
    versions.push({
      ...base,
      changeTime: Date.parse(first.reported),
      reported: first.reported,
      changed: first.items.length,
    });
  } else {
    // The recording began with an incremental read: what stood before it was never seen.
    versions.push({ ...base, readSeq: -1, changeTime: place(first.since), reported: first.since });
    rest.unshift(first);
  }
  for (const read of rest) {
    const previous = versions.at(-1) as RecordedVersion;
    const at = Math.max(Date.parse(read.reported), previous.changeTime + 1, place(read.since) + 1);
    const version: RecordedVersion = {
      ...base,
      readSeq: read.startSeq,
      readAt: read.startAt,
      changeTime: at,
      reported: read.reported,
    };
    const seen = new Set<number>();
    for (const item of read.items) {
      seen.add(item.id);
      // An incremental read's item changed by definition; a full read's only when it differs.
      if (read.since === null && isDeepStrictEqual(dataset.current(item.id), item)) continue;
      dataset.put(at, item);
      version.changed += 1;
    }
    const gone = read.since === null && read.complete ? [...dataset.currentIds()].filter((id) => !seen.has(id)) : [];
    for (const id of [...read.deletedIds, ...gone]) {
      dataset.remove(at, id);
      version.deleted += 1;
    }
    versions.push(version);
  }
  return { dataset, versions };
}

function documentVersions(reads: DatasetReads): RecordedVersion[] {
  return reads.documents.map((document, index) => ({
    changeTime: index,
    reported: '',
    readSeq: document.seq,
    readAt: document.at,
    document: document.body,
    changed: 1,
    deleted: 0,
    readsBefore: index,
  }));
}

/** The entity a recorded path serves: the recording's own path settings, the catalogue, the spec's sample path. */
function entityOf(path: string, paths: Record<string, string> | undefined): string | undefined {
  return entityAtPath(path, paths)?.name ?? (path === SAMPLE_LIST_PATH ? 'expense' : undefined);
}

/** A delivery sent again: verified at receipt, its body kept whole, a webhook body. */
function replayable(record: CaptureRecord): { body: Buffer; parsed: WebhookBodyObject } | undefined {
  if (record.verdict.valid !== true || record.bodyTruncated === true) return undefined;
  const body = Buffer.from(record.body, 'base64');
  const parsed = parseWebhookBody(body);
  return parsed.ok ? { body, parsed: parsed.body } : undefined;
}

/** The first delivery after `after` and before `before` (the list is in sequence order). */
function firstBetween<T extends { seq: number }>(list: readonly T[], after: number, before: number): T | undefined {
  const found = list[firstIndex(list.length, (index) => (list[index] as T).seq > after)];
  return found !== undefined && found.seq < before ? found : undefined;
}

export function buildHistory(recording: Recording, options: HistoryOptions = {}): RecordedHistory {
  const warnings = [...recording.warnings];
  const { datasets: reads, quirks } = assembleReads(recording.exchanges, (message) => warnings.push(message));
  const granularity = options.granularity ?? quirks.granularity ?? 'ms';
  const since = options.since ?? 'exclusive';
  const place = (value: string | null) => {
    const ms = value === null ? Number.NaN : Date.parse(value);
    return Number.isFinite(ms) ? (boundaryOf(ms, since, granularity) ?? ms) : Number.NEGATIVE_INFINITY;
  };
  const steps: StoryStep[] = [];
  let skippedDeliveries = 0;
  /** Per entity, the verified ENTITY_UPDATEs naming it, in order. */
  const announcers = new Map<string, Array<{ seq: number; at: number; id: string }>>();
  for (const { seq, record } of recording.deliveries) {
    const sendable = replayable(record);
    if (!sendable) {
      skippedDeliveries += 1;
      continue;
    }
    const at = Date.parse(record.receivedAt);
    steps.push({ kind: 'webhook', seq, at, record, ...sendable });
    if (sendable.parsed.type === 'ENTITY_UPDATE')
      for (const entity of new Set(sendable.parsed.entities)) {
        const list = announcers.get(entity) ?? [];
        list.push({ seq, at, id: record.id });
        announcers.set(entity, list);
      }
  }
  const datasets = new Map<string, ServedDataset>();
  for (const entry of reads.values()) {
    const entity = entityOf(entry.path, recording.header.paths);
    const listed = entry.reads.length > 0 ? listVersions(entry.reads, place) : undefined;
    if (listed && entry.documents.length > 0)
      warnings.push(`${entry.key}: answered both pages and a document; the pages are served`);
    const versions = listed?.versions ?? documentVersions(entry);
    datasets.set(entry.key, {
      key: entry.key,
      path: entry.path,
      entity,
      dataset: listed?.dataset,
      versions,
      faults: entry.faults,
      error: entry.error,
    });
    const readSeqs =
      entry.reads.length > 0
        ? entry.reads.map((read) => read.startSeq)
        : entry.documents.map((document) => document.seq);
    versions.forEach((version, index) => {
      if (index === 0) return;
      const announcer = firstBetween(
        entity === undefined ? [] : (announcers.get(entity) ?? []),
        (versions[index - 1] as RecordedVersion).readSeq,
        version.readSeq,
      );
      version.announcedBy = announcer?.id;
      // Just before the webhook that announced it, else just before the read that revealed it.
      const seq = (announcer?.seq ?? version.readSeq) - 0.25;
      version.readsBefore = firstIndex(readSeqs.length, (at) => (readSeqs[at] as number) >= seq);
      steps.push({
        kind: 'change',
        seq,
        at: announcer?.at ?? version.readAt,
        key: entry.key,
        version: index,
        readsBefore: version.readsBefore,
      });
    });
  }
  steps.sort((a, b) => a.seq - b.seq);
  const firstExchange = recording.exchanges[0];
  const firstDelivery = recording.deliveries[0];
  const times = [...recording.exchanges.map((exchange) => Date.parse(exchange.at)), ...steps.map((step) => step.at)];
  return {
    datasets,
    quirks,
    granularity,
    since,
    steps,
    origin: times.length > 0 ? times.reduce((a, b) => Math.min(a, b)) : 0,
    startsWithRead:
      firstExchange !== undefined && (firstDelivery === undefined || firstExchange.seq < firstDelivery.seq),
    skippedDeliveries,
    warnings,
  };
}
