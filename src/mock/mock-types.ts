import { DEFAULT_PAGE_LIMIT } from '../defaults.js';
import type { MockItem } from './entity-generators.js';

/** The API root of every list path (spec 9: the samples use {base_url}/rest/v5). */
export const MOCK_BASE_PATH = '/rest/v5';
/** Spec 4.3 rule 3: the recommended limit is also what the mock uses when none is sent. */
export const DEFAULT_PAGE_SIZE = DEFAULT_PAGE_LIMIT;
export const MAX_PAGE_SIZE = 1000;
/** Spec 4.3 rule 2's example: 202 items with limit 100 give pages of 100, 100 and 2. */
export const DEFAULT_EXPENSE_ITEMS = 202;
export const DEFAULT_OTHER_ITEMS = 25;

export interface MockFaults {
  /** Added to every API answer, in ms. */
  latencyMs?: number | undefined;
  /** Share of API requests answered 500 or 503 (0 to 1). */
  failRate?: number | undefined;
  /** Share of API requests whose connection is reset without an answer (0 to 1). */
  dropRate?: number | undefined;
  /** At most `requests` per `windowSeconds` per token, then 429 with Retry-After. */
  rateLimit?: { requests: number; windowSeconds: number } | undefined;
}

export interface MockServiceOptions {
  seed?: number | undefined;
  /** Size of the expense dataset. */
  items?: number | undefined;
  /** Size of every other dataset. */
  otherItems?: number | undefined;
  token?: string | undefined;
  userId?: string | undefined;
  /** Clock in ms since the epoch. */
  now?: (() => number) | undefined;
  /** Which page of an incremental read carries deletedIds. */
  deletedIdsOn?: DeletedIdsOn | undefined;
  /**
   * How the server compares lastUpdatedDate (the spec does not show it): `exclusive` (default) sends
   * what changed strictly after it, `inclusive` what changed at or after it.
   */
  since?: SinceBoundary | undefined;
  /** The precision of lastUpdatedDate, sent and compared: `ms` (default) or whole seconds `s`. */
  granularity?: Granularity | undefined;
  /** The largest page size accepted (default MAX_PAGE_SIZE); a larger limit answers 400 invalid_limit. */
  maxLimit?: number | undefined;
  faults?: MockFaults | undefined;
  /** Called after every mutation (the webhook sender listens here). */
  onMutation?: ((result: MutationResult) => void) | undefined;
  /**
   * POST /__mock/churn { "seconds": n } lands here (the server owns the timer); resolves once the
   * webhooks queued so far are sent. Without it the route does not exist.
   */
  onChurn?: ((seconds: number | undefined) => Promise<void>) | undefined;
}

export type DeletedIdsOn = 'first' | 'last' | 'every';
export type SinceBoundary = 'exclusive' | 'inclusive';
export type Granularity = 'ms' | 's';

export interface MockRequest {
  method: string;
  /** Path and query, e.g. /rest/v5/expenses?type=PENDING */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body?: string | undefined;
}

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Sent as these bytes instead of `body` as JSON (a recorded answer that was not JSON). */
  text?: string;
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
  /** Update exactly these items (those that exist), besides `update` chosen at random. */
  updateIds?: number[];
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

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): MockResponse => ({
  status,
  headers,
  body,
});
