import { ENTITIES, SAMPLE_LIST_PATH } from '../catalogue/entities.js';
import { DEFAULT_USER_ID } from '../samples/sample-body.js';
import { CursorCodec, type CursorState } from './cursor.js';
import { MockDataset } from './dataset.js';
import { EXPENSE_TYPES, type MockItem } from './entity-generators.js';
import { seededRandom } from './random.js';

export const MOCK_BASE_PATH = '/rest/v5';
export const DEFAULT_MOCK_TOKEN = 'ledgerhook-mock-token';
/** Spec 4.3 rule 2's example: 202 items with limit 100 give pages of 100, 100 and 2. */
export const DEFAULT_EXPENSE_ITEMS = 202;
export const DEFAULT_OTHER_ITEMS = 25;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Generated dates fall in the year before this instant: fixed, so a seed gives the same data on any day. */
const GENERATED_DATES_END = Date.UTC(2026, 10, 1);

export interface MockFaults {
  /** Added to every API answer, in ms. */
  latencyMs?: number;
  /** Share of API requests answered 500 or 503 (0 to 1). */
  failRate?: number;
  /** Share of API requests whose connection is reset without an answer (0 to 1). */
  dropRate?: number;
  /** At most `requests` per `windowSeconds` per token, then 429 with Retry-After. */
  rateLimit?: { requests: number; windowSeconds: number };
}

export interface MockServiceOptions {
  seed?: number;
  /** Size of the expense dataset. */
  items?: number;
  /** Size of every other dataset. */
  otherItems?: number;
  token?: string;
  userId?: string;
  /** Clock in ms since the epoch. */
  now?: () => number;
  /** Which page of an incremental read carries deletedIds. */
  deletedIdsOn?: 'first' | 'last' | 'every';
  faults?: MockFaults;
  /** Called after every mutation (the webhook sender listens here). */
  onMutation?: (result: MutationResult) => void;
}

export interface MockRequest {
  method: string;
  /** Path and query, e.g. /rest/v5/expenses?type=PENDING */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body?: string;
}

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Reset the connection instead of answering (fault injection). */
  drop?: boolean;
  /** Wait this long before answering (fault injection). */
  delayMs?: number;
}

export interface MutationSpec {
  path: string;
  create?: number;
  update?: number;
  delete?: number;
  /** Move this many PENDING items to another type (they leave a type=PENDING dataset). */
  retype?: number;
  retypeTo?: string;
}

export interface MutationResult {
  path: string;
  entity: string;
  userId: string;
  at: string;
  created: number[];
  updated: number[];
  deleted: number[];
  retyped: number[];
  items: MockItem[];
}

export interface ListEnvelope {
  data: MockItem[];
  lastUpdatedDate: string;
  cursor?: string;
  deletedIds?: number[];
}

type Filter = Array<[string, string]>;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

class MockHttpError extends Error {
  constructor(readonly status: number, readonly error: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): MockResponse => ({ status, headers, body });

function matches(item: MockItem, filter: Filter): boolean {
  return filter.every(([key, value]) => !(key in item) || String(item[key]) === value);
}

/**
 * The bookkeeping API, emulated in memory with the exact paging rules of spec 4.3. `handle` is a
 * plain function of a request; the node:http adapter (mock-server.ts) only carries bytes.
 */
export class MockService {
  readonly token: string;
  readonly userId: string;
  readonly #now: () => number;
  readonly #datasets = new Map<string, MockDataset>();
  readonly #pathToEntity = new Map<string, string>();
  readonly #cursors = new CursorCodec();
  readonly #random: () => number;
  readonly #options: MockServiceOptions;
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastChange: number;
  #lastIssued = 0;

  constructor(options: MockServiceOptions = {}) {
    this.#options = options;
    this.token = options.token ?? DEFAULT_MOCK_TOKEN;
    this.userId = options.userId ?? DEFAULT_USER_ID;
    this.#now = options.now ?? Date.now;
    const seed = options.seed ?? 42;
    this.#random = seededRandom(seed ^ 0x5bd1e995);
    const baseTime = this.#now() - 1;
    this.#lastChange = baseTime;
    ENTITIES.forEach((entity, index) => {
      const count = entity.name === 'expense' ? options.items ?? DEFAULT_EXPENSE_ITEMS : entity.paginated ? options.otherItems ?? DEFAULT_OTHER_ITEMS : 1;
      this.#datasets.set(entity.name, new MockDataset({ entity: entity.name, entityIndex: index, count, firstId: 100_000 * (index + 1) + 1, ctx: { seed, now: GENERATED_DATES_END }, baseTime }));
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
    if (!entity) throw new MockHttpError(404, 'not_found', `no list endpoint at ${MOCK_BASE_PATH}${path}`);
    return this.#datasets.get(entity)!;
  }

  async handle(request: MockRequest): Promise<MockResponse> {
    try {
      const url = new URL(request.url, 'http://mock.invalid');
      if (url.pathname.startsWith('/__mock/')) return this.#control(request, url);
      if (!url.pathname.startsWith(`${MOCK_BASE_PATH}/`)) throw new MockHttpError(404, 'not_found', `unknown path ${url.pathname}; the API lives under ${MOCK_BASE_PATH}`);
      const path = url.pathname.slice(MOCK_BASE_PATH.length);
      const dataset = this.#dataset(path);
      if (request.method !== 'GET') throw new MockHttpError(405, 'method_not_allowed', `${request.method} is not supported here; list endpoints are GET`, { allow: 'GET' });
      this.#authorise(request);
      const fault = this.#fault(request);
      if (fault) return fault;
      const delayMs = this.#options.faults?.latencyMs;
      const response = json(200, this.#list(dataset, path, url, request));
      return delayMs ? { ...response, delayMs } : response;
    } catch (error) {
      if (error instanceof MockHttpError) return json(error.status, { error: error.error, message: error.message }, error.headers);
      throw error;
    }
  }

  #authorise(request: MockRequest): void {
    const header = request.headers.authorization;
    if (!header) throw new MockHttpError(401, 'unauthorized', 'missing Authorization header; send "Authorization: Bearer <ACCESS_TOKEN>"');
    const match = /^Bearer (.+)$/.exec(header);
    if (!match || match[1] !== this.token) throw new MockHttpError(401, 'unauthorized', 'the access token is not valid');
  }

  #fault(request: MockRequest): MockResponse | undefined {
    const faults = this.#options.faults;
    if (!faults) return undefined;
    if (faults.rateLimit) {
      const now = this.#now();
      const key = request.headers.authorization ?? '';
      const windowMs = faults.rateLimit.windowSeconds * 1000;
      let window = this.#windows.get(key);
      if (!window || now - window.start >= windowMs) {
        window = { start: now, count: 0 };
        this.#windows.set(key, window);
      }
      window.count += 1;
      if (window.count > faults.rateLimit.requests) {
        const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
        return json(429, { error: 'rate_limited', message: `more than ${faults.rateLimit.requests} requests in ${faults.rateLimit.windowSeconds}s` }, { 'retry-after': String(retryAfter) });
      }
    }
    if (faults.dropRate && this.#random() < faults.dropRate) return { status: 0, headers: {}, body: null, drop: true };
    if (faults.failRate && this.#random() < faults.failRate) {
      const status = this.#random() < 0.5 ? 500 : 503;
      return json(status, { error: status === 500 ? 'internal_error' : 'unavailable', message: 'injected fault (--fail-rate)' });
    }
    return undefined;
  }

  #list(dataset: MockDataset, path: string, url: URL, request: MockRequest): ListEnvelope | MockItem {
    const filter: Filter = [...url.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
    if (dataset.entity === 'userTaxSetup') {
      // Spec 4.3 rule 1: named as not paginated; a single settings object.
      const [settings] = dataset.itemsAsOf(this.#snapshot());
      if (!settings) throw new MockHttpError(404, 'not_found', 'no tax setup for this user');
      return settings;
    }
    const limit = this.#limit(request.headers.limit);
    const datasetKey = `${path}?${new URLSearchParams(filter).toString()}`;
    let state: CursorState;
    const cursorHeader = request.headers.cursor;
    if (cursorHeader !== undefined && cursorHeader !== '') {
      const decoded = this.#cursors.decode(cursorHeader);
      if (!decoded.ok) throw new MockHttpError(400, 'invalid_cursor', `cursor rejected: ${decoded.reason}`);
      if (decoded.state.dataset !== datasetKey) throw new MockHttpError(400, 'invalid_cursor', 'this cursor belongs to another dataset (a different path or filter)');
      state = decoded.state;
    } else {
      state = { dataset: datasetKey, since: this.#since(request.headers.lastupdateddate), asOf: this.#snapshot(), lastId: -Infinity };
    }
    const firstPage = cursorHeader === undefined || cursorHeader === '';
    const incremental = state.since !== null && state.since >= dataset.baseTime;
    let page: MockItem[] = [];
    let more = false;
    let deletedIds: number[] = [];
    if (!incremental) {
      for (const item of dataset.itemsAsOf(state.asOf, state.lastId)) {
        if (!matches(item, filter)) continue;
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(item);
      }
    } else {
      const changes = dataset.changesBetween(state.since!, state.asOf);
      for (const id of changes.ids) {
        const after = changes.after.get(id);
        if (id <= state.lastId || !after || !matches(after, filter)) continue;
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(after);
      }
      deletedIds = changes.ids.filter((id) => {
        const before = changes.before.get(id);
        const after = changes.after.get(id);
        return before && matches(before, filter) && !(after && matches(after, filter));
      });
    }
    const envelope: ListEnvelope = { data: page, lastUpdatedDate: new Date(state.asOf).toISOString() };
    if (more) envelope.cursor = this.#cursors.encode({ ...state, lastId: page.at(-1)!.id });
    const on = this.#options.deletedIdsOn ?? 'first';
    const carriesDeleted = on === 'every' || (on === 'first' && firstPage) || (on === 'last' && !more);
    if (deletedIds.length > 0 && carriesDeleted) envelope.deletedIds = deletedIds;
    return envelope;
  }

  #limit(header: string | undefined): number {
    if (header === undefined || header === '') return DEFAULT_PAGE_SIZE;
    if (!/^\d+$/.test(header.trim())) throw new MockHttpError(400, 'invalid_limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got "${header}"`);
    const limit = Number(header);
    if (limit < 1 || limit > MAX_PAGE_SIZE) throw new MockHttpError(400, 'invalid_limit', `limit must be from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
    return limit;
  }

  #since(header: string | undefined): number | null {
    if (header === undefined || header === '') return null;
    const value = header.trim();
    const ms = Date.parse(value);
    if (!ISO_8601.test(value) || !Number.isFinite(ms)) throw new MockHttpError(400, 'invalid_last_updated_date', `lastUpdatedDate must be an ISO 8601 timestamp such as 2026-01-31T12:00:00.000Z, got "${header}"`);
    return ms;
  }

  #control(request: MockRequest, url: URL): MockResponse {
    if (url.pathname === '/__mock/mutate' && request.method === 'POST') {
      let spec: unknown;
      try {
        spec = JSON.parse(request.body ?? '');
      } catch {
        throw new MockHttpError(400, 'invalid_body', 'the body must be JSON: { "path": "/expenses", "create": 1, "update": 1, "delete": 1, "retype": 1 }');
      }
      return json(200, this.mutate(spec as MutationSpec));
    }
    if (url.pathname === '/__mock/dataset' && request.method === 'GET') {
      const path = url.searchParams.get('path');
      if (!path) throw new MockHttpError(400, 'invalid_query', 'give ?path=/expenses (and any filter, e.g. &type=PENDING)');
      const filter = [...url.searchParams.entries()].filter(([key]) => key !== 'path');
      return json(200, this.dataset(path, Object.fromEntries(filter)));
    }
    throw new MockHttpError(404, 'not_found', 'mock control endpoints: POST /__mock/mutate, GET /__mock/dataset?path=..., POST /__mock/churn');
  }

  /** The whole current dataset (ground truth for tests), sorted by id. */
  dataset(path: string, filter: Record<string, string> = {}): { path: string; data: MockItem[]; lastUpdatedDate: string } {
    const dataset = this.#dataset(path);
    const asOf = this.#snapshot();
    const entries = Object.entries(filter);
    const data = [...dataset.itemsAsOf(asOf)].filter((item) => matches(item, entries));
    return { path, data, lastUpdatedDate: new Date(asOf).toISOString() };
  }

  /** Creates, updates, deletes and retypes items, all at one new instant. */
  mutate(spec: MutationSpec): MutationResult {
    if (spec === null || typeof spec !== 'object' || typeof spec.path !== 'string') throw new MockHttpError(400, 'invalid_body', 'path is required, e.g. { "path": "/expenses", "create": 2 }');
    const dataset = this.#dataset(spec.path.startsWith('/') ? spec.path : `/${spec.path}`);
    const count = (name: keyof MutationSpec) => {
      const value = spec[name] ?? 0;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100_000) throw new MockHttpError(400, 'invalid_body', `${name} must be a whole number from 0 to 100000`);
      return value;
    };
    const [creates, updates, deletes, retypes] = [count('create'), count('update'), count('delete'), count('retype')];
    const at = this.#tick();
    const result: MutationResult = { path: spec.path, entity: dataset.entity, userId: this.userId, at: new Date(at).toISOString(), created: [], updated: [], deleted: [], retyped: [], items: [] };
    if (retypes > 0) {
      const first = dataset.existingIdsFrom(() => 0).next();
      const sample = first.done ? undefined : dataset.get(first.value);
      if (!sample || !('type' in sample)) throw new MockHttpError(400, 'invalid_body', `${dataset.entity} items have no type to change`);
      const to = spec.retypeTo ?? 'BUSINESS';
      if (to === 'PENDING') throw new MockHttpError(400, 'invalid_body', 'retype moves PENDING items to another type; retypeTo must not be PENDING');
      for (const id of dataset.existingIdsFrom(this.#random)) {
        if (result.retyped.length === retypes) break;
        if (dataset.get(id)!.type === 'PENDING') {
          result.items.push(dataset.update(at, id, { type: to })!);
          result.retyped.push(id);
        }
      }
    }
    const touched = new Set(result.retyped);
    const pickIds = (n: number) => {
      const ids: number[] = [];
      for (const id of dataset.existingIdsFrom(this.#random)) {
        if (ids.length === n) break;
        if (!touched.has(id)) {
          ids.push(id);
          touched.add(id);
        }
      }
      return ids;
    };
    for (const id of pickIds(updates)) {
      const current = dataset.get(id)!;
      const patch: Partial<MockItem> = typeof current.amount === 'number'
        ? { amount: Math.round((current.amount * (0.5 + this.#random())) * 100) / 100 }
        : { ...dataset.freshFields(Math.floor(this.#random() * 1e9)) };
      if ('type' in current && dataset.entity === 'expense' && current.type !== 'PENDING' && this.#random() < 0.2) patch.type = EXPENSE_TYPES[1 + Math.floor(this.#random() * 3)]!;
      result.items.push(dataset.update(at, id, patch)!);
      result.updated.push(id);
    }
    for (const id of pickIds(deletes)) {
      dataset.delete(at, id);
      result.deleted.push(id);
    }
    for (let index = 0; index < creates; index += 1) {
      const item = dataset.create(at, dataset.freshFields(dataset.changeCount * 7 + index));
      result.items.push(item);
      result.created.push(item.id);
    }
    this.#options.onMutation?.(result);
    return result;
  }
}
