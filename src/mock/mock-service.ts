/**
 * mock/: the service emulator. MockService.handle (this file) is a plain request → response;
 * mock-server.ts only moves bytes.
 *   dataset.ts, paging.ts, cursor.ts  generated data and the paging rules every dataset shares
 *   faults.ts, churn.ts, mutations.ts rate limits, dropped connections, 5xx; changes over time
 *   answer-gate.ts                    every list answer passes a gate a driver can hold (the race
 *                                     cases of check-consumer)
 *   mock-webhooks.ts                  signed deliveries for the changes
 *   recorded-*.ts                     `mock --from`: a recording served by the same paging rules and
 *                                     its story told again in the recorded order
 */
import { ENTITIES } from '@ledgerhook/webhooks';
import { SAMPLE_LIST_PATH } from '@ledgerhook/webhooks/advanced';
import { authorise } from './bearer.js';
import { DEFAULT_USER_ID } from '../samples/sample-body.js';
import { DEFAULT_MOCK_TOKEN } from '../defaults.js';
import { AnswerGate } from './answer-gate.js';
import { churnSeconds } from './churn.js';
import { CursorCodec } from './cursor.js';
import { MockDataset } from './dataset.js';
import type { MockItem } from './entity-generators.js';
import { FaultInjector } from './faults.js';
import { mockError, mockErrorResponse } from './mock-error.js';
import {
  DEFAULT_EXPENSE_ITEMS,
  DEFAULT_OTHER_ITEMS,
  json,
  type ListEnvelope,
  MOCK_BASE_PATH,
  type MockFaults,
  type MockRequest,
  type MockResponse,
  type MockServiceOptions,
  type MutationResult,
  type MutationSpec,
} from './mock-types.js';
import { applyMutation, checkMutationSpec, mutationCounts } from './mutations.js';
import { boundaryOf, filterOf, listPage, matches, parseLimit, parseSince, readState } from './paging.js';
import { seededRandom } from './random.js';

/** Generated dates fall in the year before this instant: fixed, so a seed gives the same data on any day. */
const GENERATED_DATES_END = Date.UTC(2026, 10, 1);

const CONTROL_ROUTES = 'mock control endpoints: POST /__mock/mutate, GET /__mock/dataset?path=..., POST /__mock/churn';

function parseJsonBody(body: string | undefined, example: string): unknown {
  try {
    return JSON.parse(body ?? '');
  } catch {
    throw mockError(400, 'invalid_body', `the body must be JSON: ${example}`);
  }
}

/**
 * The bookkeeping API, emulated in memory with the exact paging rules of spec 4.3. `handle` is a
 * plain function of a request; the node:http adapter (mock-server.ts) only carries bytes. Paging,
 * faults, mutations and churn live in their own modules; this class routes and authorises.
 */
export class MockService {
  readonly token: string;
  readonly userId: string;
  /** Every list answer passes here before it is sent: a driver may watch them and hold one back. */
  readonly answers = new AnswerGate((path) => this.entityFor(path));
  readonly #now: () => number;
  readonly #datasets = new Map<string, MockDataset>();
  readonly #pathToEntity = new Map<string, string>();
  readonly #cursors = new CursorCodec();
  readonly #random: () => number;
  readonly #options: MockServiceOptions;
  #faults: FaultInjector | undefined;
  #lastChange: number;
  #lastIssued = 0;

  constructor(options: MockServiceOptions = {}) {
    this.#options = options;
    // An empty token or userId is as good as none: nothing could ever match it.
    this.token = options.token || DEFAULT_MOCK_TOKEN;
    this.userId = options.userId || DEFAULT_USER_ID;
    this.#now = options.now ?? Date.now;
    const seed = options.seed ?? 42;
    this.#random = seededRandom(seed ^ 0x5bd1e995);
    this.#faults = options.faults ? new FaultInjector(options.faults, this.#random, this.#now) : undefined;
    const baseTime = this.#now() - 1;
    this.#lastChange = baseTime;
    ENTITIES.forEach((entity, index) => {
      const count =
        entity.name === 'expense'
          ? (options.items ?? DEFAULT_EXPENSE_ITEMS)
          : entity.paginated
            ? (options.otherItems ?? DEFAULT_OTHER_ITEMS)
            : 1;
      const ctx = { seed, now: GENERATED_DATES_END };
      const firstId = 100_000 * (index + 1) + 1;
      this.#datasets.set(
        entity.name,
        new MockDataset({ entity: entity.name, entityIndex: index, count, firstId, ctx, baseTime }),
      );
      this.#pathToEntity.set(entity.path, entity.name);
    });
    this.#pathToEntity.set(SAMPLE_LIST_PATH, 'expense');
  }

  /** The time of a change: after every earlier change and every lastUpdatedDate already handed out. */
  #tick(): number {
    const at = Math.max(this.#now(), this.#lastChange + 1, this.#lastIssued + 1);
    this.#lastChange = at;
    return at;
  }

  /** The snapshot time of a new read: it covers every change made so far. */
  #snapshot(): number {
    const at = Math.max(this.#now(), this.#lastChange);
    this.#lastIssued = Math.max(this.#lastIssued, at);
    return at;
  }

  entityFor(path: string): string | undefined {
    return this.#pathToEntity.get(path.replace(/\/+$/, '') || '/');
  }

  #dataset(path: string): MockDataset {
    const entity = this.entityFor(path);
    const dataset = entity === undefined ? undefined : this.#datasets.get(entity);
    if (!dataset) throw mockError(404, 'not_found', `no list endpoint at ${MOCK_BASE_PATH}${path}`);
    return dataset;
  }

  async handle(request: MockRequest): Promise<MockResponse> {
    try {
      const url = new URL(request.url, 'http://mock.invalid');
      if (url.pathname.startsWith('/__mock/')) return await this.#control(request, url);
      const response = this.#api(request, url);
      await this.answers.pass(request, url, response);
      return response;
    } catch (error) {
      const response = mockErrorResponse(error);
      if (response) return response;
      throw error;
    }
  }

  #api(request: MockRequest, url: URL): MockResponse {
    if (!url.pathname.startsWith(`${MOCK_BASE_PATH}/`))
      throw mockError(404, 'not_found', `unknown path ${url.pathname}; the API lives under ${MOCK_BASE_PATH}`);
    const path = url.pathname.slice(MOCK_BASE_PATH.length);
    const dataset = this.#dataset(path);
    if (request.method !== 'GET')
      throw mockError(405, 'method_not_allowed', `${request.method} is not supported here; list endpoints are GET`, {
        allow: 'GET',
      });
    authorise(request, this.token);
    const fault = this.#faults?.check(request);
    if (fault) return fault;
    const response = json(200, this.#list(dataset, path, url, request));
    const delayMs = this.#faults?.latencyMs;
    if (delayMs) response.delayMs = delayMs;
    return response;
  }

  #list(dataset: MockDataset, path: string, url: URL, request: MockRequest): ListEnvelope | MockItem {
    const filter = filterOf(url.searchParams);
    if (dataset.entity === 'userTaxSetup') {
      // Spec 4.3 rule 1: named as not paginated; a single settings object.
      const [settings] = dataset.itemsAsOf(this.#snapshot());
      if (!settings) throw mockError(404, 'not_found', 'no tax setup for this user');
      return settings;
    }
    const limit = parseLimit(request.headers.limit, this.#options.maxLimit);
    const datasetKey = `${path}?${new URLSearchParams(filter).toString()}`;
    const { state, firstPage } = readState(this.#cursors, datasetKey, request.headers, () => ({
      dataset: datasetKey,
      since: boundaryOf(
        parseSince(request.headers.lastupdateddate),
        this.#options.since ?? 'exclusive',
        this.#options.granularity ?? 'ms',
      ),
      asOf: this.#snapshot(),
      lastId: Number.NEGATIVE_INFINITY,
    }));
    const deletedIdsOn = this.#options.deletedIdsOn ?? 'first';
    const granularity = this.#options.granularity ?? 'ms';
    return listPage({ dataset, state, firstPage, filter, limit, cursors: this.#cursors, deletedIdsOn, granularity });
  }

  async #control(request: MockRequest, url: URL): Promise<MockResponse> {
    const route = `${request.method} ${url.pathname}`;
    if (route === 'POST /__mock/mutate') {
      const example =
        '{ "path": "/expenses", "create": 1, "update": 1, "delete": 1, "retype": 1, "updateIds": [100001] }';
      return json(200, this.mutate(checkMutationSpec(parseJsonBody(request.body, example))));
    }
    if (route === 'GET /__mock/dataset') {
      const path = url.searchParams.get('path');
      if (!path) throw mockError(400, 'invalid_query', 'give ?path=/expenses (and any filter, e.g. &type=PENDING)');
      const filter = [...url.searchParams.entries()].filter(([key]) => key !== 'path');
      return json(200, this.dataset(path, Object.fromEntries(filter)));
    }
    const onChurn = this.#options.onChurn;
    if (route === 'POST /__mock/churn' && onChurn) {
      const body = request.body === undefined || request.body === '' ? '{}' : request.body;
      const seconds = churnSeconds(parseJsonBody(body, '{ "seconds": 2 }'));
      await onChurn(seconds);
      return json(200, { churnSeconds: seconds ?? null });
    }
    throw mockError(404, 'not_found', CONTROL_ROUTES);
  }

  /**
   * Replaces the faults while the service runs (undefined: none), with fresh rate-limit windows and
   * counts; returns those counts, which keep growing while these faults stay in place.
   */
  setFaults(faults: MockFaults | undefined): FaultInjector['counts'] {
    this.#faults = faults ? new FaultInjector(faults, this.#random, this.#now) : undefined;
    return this.#faults?.counts ?? { rateLimited: 0, failed: 0, dropped: 0 };
  }

  /** The whole current dataset (ground truth for tests), sorted by id. */
  dataset(
    path: string,
    filter: Record<string, string> = {},
  ): { path: string; data: MockItem[]; lastUpdatedDate: string } {
    const dataset = this.#dataset(path);
    const asOf = this.#snapshot();
    const entries = Object.entries(filter);
    const data = [...dataset.itemsAsOf(asOf)].filter((item) => matches(item, entries));
    return { path, data, lastUpdatedDate: new Date(asOf).toISOString() };
  }

  /** Creates, updates, deletes and retypes items, all at one new instant. */
  mutate(spec: MutationSpec): MutationResult {
    checkMutationSpec(spec);
    const dataset = this.#dataset(spec.path.startsWith('/') ? spec.path : `/${spec.path}`);
    const counts = mutationCounts(spec);
    const result = applyMutation(dataset, spec, counts, {
      at: this.#tick(),
      random: this.#random,
      userId: this.userId,
    });
    this.#options.onMutation?.(result);
    return result;
  }
}
