import { DEFAULT_MOCK_TOKEN } from '../defaults.js';
import { authorise } from './bearer.js';
import { CursorCodec } from './cursor.js';
import { FaultInjector } from './faults.js';
import { mockError, mockErrorResponse } from './mock-error.js';
import {
  type DeletedIdsOn,
  json,
  MOCK_BASE_PATH,
  type MockFaults,
  type MockRequest,
  type MockResponse,
} from './mock-types.js';
import { boundaryOf, listPage, parseLimit, parseSince, readState, reportedDate } from './paging.js';
import { seededRandom } from './random.js';
import type { RecordedHistory, ServedDataset } from './recorded-history.js';
import { datasetKey, type RecordedAnswer } from './recorded-reads.js';

export interface RecordedServiceOptions {
  history: RecordedHistory;
  /** The bearer token it accepts (default: the mock's). */
  token?: string | undefined;
  /** Answer with the recorded 429s, 5xx and dropped connections, each at its place among its dataset's requests. */
  recordedFaults?: boolean | undefined;
  /** The mock's own faults, on top. */
  faults?: MockFaults | undefined;
  /** Which page of an incremental read carries deletedIds (default: as recorded, else the first). */
  deletedIdsOn?: DeletedIdsOn | undefined;
  now?: (() => number) | undefined;
  /** Called as each API request arrives, before it is answered (the story starts with the first). */
  onRequest?: (() => void) | undefined;
  /** Called once a read's first page is answered (a change waiting for that read may go on). */
  onRead?: ((key: string) => void) | undefined;
}

/** Recorded headers that may be served again: printable, and never one that points anywhere (Location). */
const SERVED_HEADERS = /^(content-type|retry-after|(x-)?rate-?limit[a-z0-9-]*)$/;
const PRINTABLE = /^[\t\x20-\x7e]*$/;

/** A recorded answer as the mock gives it again: its status, body and the headers that are safe to repeat. */
export function recordedResponse(answer: RecordedAnswer): MockResponse {
  if (answer.status === 0) return { status: 0, headers: {}, body: null, drop: true };
  // An informational status is no answer to give again (and would leave the connection hanging).
  const status = answer.status >= 200 ? answer.status : 502;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (SERVED_HEADERS.test(name) && PRINTABLE.test(value)) headers[name] = value;
  if (answer.body !== undefined) return json(status, answer.body, headers);
  // A recorded page that was not JSON (a proxy's HTML error, say) is served inert: never run as a page.
  const inert = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" };
  return {
    status,
    headers: { 'content-type': 'text/plain', ...headers, ...inert },
    body: null,
    text: answer.text ?? '',
  };
}

/**
 * The API as the recording saw it: the recorded datasets, paged by the mock's rules (paging.ts) over
 * the recorded items and their change times, with the recorded quirks (page size caps, the end of
 * the last page, timestamp precision, error bodies) and, when asked, the recorded faults. Which
 * version of each dataset stands is the story's to say (`show`).
 */
export class RecordedMockService {
  readonly token: string;
  readonly #history: RecordedHistory;
  readonly #options: RecordedServiceOptions;
  readonly #visible = new Map<string, number>();
  readonly #requests = new Map<string, number>();
  readonly #reads = new Map<string, number>();
  readonly #cursors = new CursorCodec();
  readonly #faults: FaultInjector | undefined;

  constructor(options: RecordedServiceOptions) {
    this.#options = options;
    this.#history = options.history;
    this.token = options.token || DEFAULT_MOCK_TOKEN;
    const now = options.now ?? Date.now;
    this.#faults = options.faults ? new FaultInjector(options.faults, seededRandom(0x5bd1e995), now) : undefined;
  }

  /** The reads of a dataset (first pages, documents) the consumer has started. */
  readsOf(key: string): number {
    return this.#reads.get(key) ?? 0;
  }

  /**
   * A read starts: a change no webhook announced, which the recording revealed with this read, is
   * visible to it (a consumer that polls sees what the recorded one saw). Returns the read's number.
   */
  #startRead(served: ServedDataset): number {
    const reads = this.readsOf(served.key);
    served.versions.forEach((version, index) => {
      if (index > 0 && version.announcedBy === undefined && version.readsBefore === reads) this.show(served.key, index);
    });
    return reads;
  }

  #readDone(key: string, reads: number): void {
    this.#reads.set(key, reads + 1);
    this.#options.onRead?.(key);
  }

  /** From now on the dataset stands as that version (never moves back). */
  show(key: string, version: number): void {
    this.#visible.set(key, Math.max(this.#visible.get(key) ?? 0, version));
  }

  async handle(request: MockRequest): Promise<MockResponse> {
    try {
      return this.#answer(request);
    } catch (error) {
      const response = mockErrorResponse(error);
      if (!response) throw error;
      // The service's own error shape, when the recording saw one for this status.
      const recorded = this.#history.quirks.errorBodies.get(response.status);
      return recorded ? { ...recordedResponse(recorded), status: response.status } : response;
    }
  }

  #answer(request: MockRequest): MockResponse {
    const url = new URL(request.url, 'http://mock.invalid');
    if (url.pathname.startsWith('/__mock/'))
      throw mockError(404, 'not_found', 'a recording is served as recorded: the /__mock/ control endpoints are off');
    if (!url.pathname.startsWith(`${MOCK_BASE_PATH}/`))
      throw mockError(404, 'not_found', `unknown path ${url.pathname}; the API lives under ${MOCK_BASE_PATH}`);
    if (request.method !== 'GET')
      throw mockError(405, 'method_not_allowed', `${request.method} is not supported here; list endpoints are GET`, {
        allow: 'GET',
      });
    authorise(request, this.token);
    this.#options.onRequest?.();
    const path = url.pathname.slice(MOCK_BASE_PATH.length);
    const key = datasetKey(path, url.search);
    const served = this.#history.datasets.get(key);
    if (!served) throw mockError(404, 'not_found', `the recording holds no answer for ${path}${url.search}`);
    const nth = this.#requests.get(key) ?? 0;
    this.#requests.set(key, nth + 1);
    const fault = this.#options.recordedFaults ? served.faults[nth] : undefined;
    if (fault) return recordedResponse(fault);
    const injected = this.#faults?.check(request);
    if (injected) return injected;
    if (served.versions.length === 0)
      return served.error ? recordedResponse(served.error) : json(404, { error: 'not_found' });
    const first = !served.dataset || request.headers.cursor === undefined || request.headers.cursor === '';
    const reads = first ? this.#startRead(served) : undefined;
    const version = served.versions[this.#visible.get(key) ?? 0];
    const response = served.dataset
      ? this.#page(served, version?.changeTime ?? Number.NEGATIVE_INFINITY, request)
      : json(200, version?.document);
    if (reads !== undefined) this.#readDone(key, reads);
    const delayMs = this.#faults?.latencyMs;
    if (delayMs) response.delayMs = delayMs;
    return response;
  }

  #page(served: ServedDataset, asOf: number, request: MockRequest): MockResponse {
    const { quirks, granularity, since } = this.#history;
    const dataset = served.dataset;
    if (!dataset) throw mockError(404, 'not_found', 'not a list');
    const header = request.headers.limit;
    const asked =
      header === undefined || header === '' ? (quirks.defaultPageSize ?? parseLimit(header)) : parseLimit(header);
    const limit = Math.min(asked, quirks.maxPageSize ?? asked);
    const { state, firstPage } = readState(this.#cursors, served.key, request.headers, () => ({
      dataset: served.key,
      since: boundaryOf(parseSince(request.headers.lastupdateddate), since, granularity),
      asOf,
      lastId: Number.NEGATIVE_INFINITY,
    }));
    const deletedIdsOn = this.#options.deletedIdsOn ?? quirks.deletedIdsOn ?? 'first';
    const envelope = listPage({ dataset, state, firstPage, filter: [], limit, cursors: this.#cursors, deletedIdsOn });
    // The lastUpdatedDate exactly as the service wrote it for the version read, at its precision.
    const reported =
      served.versions.find((candidate) => candidate.changeTime === state.asOf)?.reported ??
      reportedDate(state.asOf, granularity);
    const body: Record<string, unknown> = { ...envelope, lastUpdatedDate: reported };
    if (envelope.cursor === undefined && quirks.endMarker !== 'absent')
      body.cursor = quirks.endMarker === 'null' ? null : '';
    return json(200, body);
  }
}
