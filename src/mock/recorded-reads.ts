import { classifyBody, type ListPage } from '../dataset/envelope.js';
import type { RecordedExchange } from '../record/recording-format.js';
import type { MockItem } from './entity-generators.js';
import type { DeletedIdsOn, Granularity } from './mock-types.js';
import { filterOf } from './paging.js';

/**
 * The recorded exchanges as reads: each dataset's pages joined by their cursors into the reads a
 * client made (full or incremental), its documents, its error answers; and what the pages show of
 * the service's habits (page size caps, timestamp precision, how the last page ends).
 */

/** A recorded answer the mock gives again: an error body, a fault. */
export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  text?: string;
}

export interface RecordedRead {
  /** The lastUpdatedDate the read sent, or null for a full read. */
  since: string | null;
  /** The first page's lastUpdatedDate, as the service wrote it. */
  reported: string;
  startSeq: number;
  startAt: number;
  items: MockItem[];
  deletedIds: number[];
  /** Its last page was recorded (a full read's missing items can be taken as deleted). */
  complete: boolean;
}

export interface DatasetReads {
  /** path?sorted query: rule 6's dataset. */
  key: string;
  path: string;
  reads: RecordedRead[];
  documents: Array<{ seq: number; at: number; body: unknown }>;
  /** By the order of the dataset's requests: the faults (429, 5xx, no answer) recorded at that place. */
  faults: Array<RecordedAnswer | undefined>;
  /** An answer other than 200 that is not a fault, when the dataset never answered 200 (a path the service does not serve). */
  error?: RecordedAnswer | undefined;
}

export interface LearnedQuirks {
  granularity: Granularity | undefined;
  deletedIdsOn: DeletedIdsOn | undefined;
  /** How the last page of a read ends: no cursor, `cursor: null` or `cursor: ""`. */
  endMarker: 'absent' | 'null' | 'empty';
  /** The most items a page held while more remained, when fewer than asked for. */
  maxPageSize: number | undefined;
  /** The page size with no limit header. */
  defaultPageSize: number | undefined;
  /** The first error body recorded for each status (the service's own error shape). */
  errorBodies: Map<number, RecordedAnswer>;
}

export function datasetKey(path: string, query: string): string {
  return `${path}?${new URLSearchParams(filterOf(new URLSearchParams(query))).toString()}`;
}

const isFault = (status: number) => status === 0 || status === 429 || status >= 500;
const WHOLE_SECONDS = /T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:?\d{2})$/;

function answerOf(exchange: RecordedExchange): RecordedAnswer {
  const answer: RecordedAnswer = { status: exchange.status, headers: exchange.headers };
  if (exchange.body !== undefined) answer.body = exchange.body;
  else if (exchange.text !== undefined) answer.text = exchange.text;
  return answer;
}

/** Spec 2.5: ids are numbers. A recorded item with another id cannot be paged by id and is left out. */
const numericId = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id);

interface Learning {
  caps: number[];
  defaults: number[];
  ends: Record<LearnedQuirks['endMarker'], number>;
  wholeSeconds: boolean;
  sawDate: boolean;
  deletedOn: Set<DeletedIdsOn>;
}

/** Joins each dataset's pages into reads; `warn` hears what could not be used. */
export function assembleReads(
  exchanges: readonly RecordedExchange[],
  warn: (message: string) => void,
): { datasets: Map<string, DatasetReads>; quirks: LearnedQuirks } {
  const datasets = new Map<string, DatasetReads>();
  const open = new Map<string, { read: RecordedRead; cursor: string | undefined; deletedPages: boolean[] }>();
  const learning: Learning = {
    caps: [],
    defaults: [],
    ends: { absent: 0, null: 0, empty: 0 },
    wholeSeconds: true,
    sawDate: false,
    deletedOn: new Set(),
  };
  const errorBodies = new Map<number, RecordedAnswer>();
  const close = (key: string) => {
    const current = open.get(key);
    if (!current) return;
    open.delete(key);
    datasets.get(key)?.reads.push(current.read);
    const pages = current.deletedPages;
    if (current.read.since !== null && pages.length > 1 && pages.some(Boolean))
      learning.deletedOn.add(pages.every(Boolean) ? 'every' : pages[0] ? 'first' : 'last');
  };
  for (const exchange of exchanges) {
    if (exchange.method !== 'GET') continue;
    const key = datasetKey(exchange.path, exchange.query);
    let dataset = datasets.get(key);
    if (!dataset) {
      dataset = { key, path: exchange.path, reads: [], documents: [], faults: [] };
      datasets.set(key, dataset);
    }
    dataset.faults.push(isFault(exchange.status) ? answerOf(exchange) : undefined);
    if (exchange.status !== 200) {
      if (!isFault(exchange.status)) {
        if (!errorBodies.has(exchange.status)) errorBodies.set(exchange.status, answerOf(exchange));
        dataset.error ??= answerOf(exchange);
      }
      continue;
    }
    const at = Date.parse(exchange.at);
    if (exchange.body === undefined) {
      warn(
        `#${exchange.seq} ${key}: the answer was not recorded (${exchange.bodyOmitted ? 'too large' : 'not JSON'}); its read is incomplete`,
      );
      close(key);
      continue;
    }
    const classified = classifyBody(exchange.body);
    if (classified.kind === 'document') {
      dataset.documents.push({ seq: exchange.seq, at, body: exchange.body });
      continue;
    }
    if (classified.kind === 'invalid') {
      warn(`#${exchange.seq} ${key}: not a list page (${classified.reason}); skipped`);
      continue;
    }
    const page: ListPage = classified.page;
    const cursor = exchange.request.cursor;
    let current = open.get(key);
    if (cursor === undefined || cursor === '') {
      close(key);
      current = {
        read: {
          since: exchange.request.lastUpdatedDate ?? null,
          reported: page.lastUpdatedDate,
          startSeq: exchange.seq,
          startAt: at,
          items: [],
          deletedIds: [],
          complete: false,
        },
        cursor: undefined,
        deletedPages: [],
      };
      open.set(key, current);
    } else if (!current || current.cursor !== cursor) {
      warn(`#${exchange.seq} ${key}: a page whose cursor continues no recorded read; skipped`);
      continue;
    }
    learning.sawDate = true;
    if (!WHOLE_SECONDS.test(page.lastUpdatedDate)) learning.wholeSeconds = false;
    const items = page.data.filter((item) => numericId(item.id)) as MockItem[];
    if (items.length < page.data.length)
      warn(`#${exchange.seq} ${key}: items without a numeric id (spec 2.5) are left out`);
    current.read.items.push(...items);
    const deleted = (page.deletedIds ?? []).map(Number).filter((id) => Number.isSafeInteger(id));
    current.read.deletedIds.push(...deleted);
    current.deletedPages.push(deleted.length > 0);
    const limit = exchange.request.limit === undefined ? undefined : Number(exchange.request.limit);
    if (page.cursor !== undefined) {
      current.cursor = page.cursor;
      if (limit === undefined) learning.defaults.push(page.data.length);
      else if (limit > page.data.length && page.data.length > 0) learning.caps.push(page.data.length);
    } else {
      learning.ends[
        classified.quirk === 'cursor-null' ? 'null' : classified.quirk === 'cursor-empty' ? 'empty' : 'absent'
      ] += 1;
      current.read.complete = true;
      close(key);
    }
  }
  for (const key of [...open.keys()]) close(key);
  const [endMarker] = (Object.entries(learning.ends) as Array<[LearnedQuirks['endMarker'], number]>).sort(
    (a, b) => b[1] - a[1],
  )[0] ?? ['absent'];
  const quirks: LearnedQuirks = {
    granularity: learning.sawDate ? (learning.wholeSeconds ? 's' : 'ms') : undefined,
    deletedIdsOn: learning.deletedOn.size === 1 ? [...learning.deletedOn][0] : undefined,
    endMarker,
    maxPageSize: learning.caps.length > 0 ? learning.caps.reduce((a, b) => Math.min(a, b)) : undefined,
    defaultPageSize: learning.defaults.length > 0 ? learning.defaults.reduce((a, b) => Math.max(a, b)) : undefined,
    errorBodies,
  };
  return { datasets, quirks };
}
