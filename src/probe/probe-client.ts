import type { Dispatcher } from 'undici';
import { exchange } from '../http/fetch-attempt.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter } from '../http/retry-policy.js';
import { backoffWait } from '../util/backoff.js';
import { listHeaders, listUrl } from '../sync/paginate.js';
import type { ResolvedProbeOptions } from './probe-options.js';

/** The request budget (or one request's wait budget) is spent: the probe reports what it has. */
export class ProbeStopped extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'ProbeStopped';
  }
}

/** One answer as the probe keeps it: never the whole body of a page, only what it looks at. */
export interface ProbeAnswer {
  path: string;
  status: number;
  /** The headers the probe reads (lower case): date, content-type, retry-after, rate limits. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  sentAt: number;
  receivedAt: number;
}

/** A 429 as met: how many requests had gone through since the last wait, in how long, and what it said. */
export interface RateLimitHit {
  requestsBefore: number;
  elapsedMs: number;
  retryAfterMs?: number | undefined;
}

const KEPT_HEADERS = /^(date|content-type|retry-after|x-ratelimit-[a-z-]+|ratelimit(-[a-z]+)?)$/;

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export interface ListRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
  lastUpdatedDate?: string | undefined;
}

/**
 * The probe's GETs: each counted against the request budget before it is sent (never one more),
 * 429 and 5xx answers waited out within the wait budget (Retry-After honoured, else the retry
 * policy's backoff) and remembered for what they say about the service's limits.
 */
export class ProbeClient {
  readonly #options: ResolvedProbeOptions;
  #requests = 0;
  /** Every answer's status and kept headers, in order (no bodies): the time and limits read them. */
  readonly answers: Array<Omit<ProbeAnswer, 'text' | 'json'>> = [];
  readonly rateLimits: RateLimitHit[] = [];
  #withRetryAfter = 0;
  #waitedMs = 0;
  /** Since the last wait: requests that went through, and when the first of them was sent. */
  #window: { start: number; count: number } | undefined;

  constructor(options: ResolvedProbeOptions) {
    this.#options = options;
  }

  get requests(): number {
    return this.#requests;
  }

  get dispatcher(): Dispatcher | undefined {
    return this.#options.dispatcher;
  }

  rateLimitedSummary(): { count: number; withRetryAfter: number; waitedMs: number } | undefined {
    const count = this.rateLimits.length;
    return count === 0 ? undefined : { count, withRetryAfter: this.#withRetryAfter, waitedMs: this.#waitedMs };
  }

  /** GET a list path (relative to the API root, by default the one given) with the spec's request headers. */
  async get(path: string, request: ListRequest = {}, baseUrl = this.#options.baseUrl): Promise<ProbeAnswer> {
    const { now, sleep, limits } = this.#options;
    const budget = limits.maxWaitMs;
    const url = listUrl(baseUrl, path);
    const headers = listHeaders(this.#options.token, request);
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      if (this.#requests >= limits.maxRequests)
        throw new ProbeStopped(`the budget of ${limits.maxRequests} requests was spent`);
      this.#requests += 1;
      this.#options.onRequest?.({ requests: this.#requests, path });
      const sentAt = now();
      this.#window ??= { start: sentAt, count: 0 };
      const result = await exchange({
        url,
        headers,
        dispatcher: this.#options.dispatcher,
        signal: this.#options.signal,
        timeoutMs: limits.timeoutMs,
        maxResponseBytes: limits.maxResponseBytes,
      });
      // A network failure stops the probe: what follows would say nothing about the service.
      if (!result.ok) throw result.error;
      const receivedAt = now();
      const kept: Record<string, string> = {};
      for (const [name, value] of Object.entries(result.headers)) {
        const text = headerText(value);
        if (text !== undefined && KEPT_HEADERS.test(name)) kept[name] = text.slice(0, 200);
      }
      this.answers.push({ path, status: result.status, headers: kept, sentAt, receivedAt });
      if (result.status !== 429 && result.status < 500) {
        this.#window.count += 1;
        return {
          path,
          status: result.status,
          headers: kept,
          text: result.text,
          json: parse(result.text),
          sentAt,
          receivedAt,
        };
      }
      const retryAfterMs = parseRetryAfter(kept['retry-after'], receivedAt);
      if (result.status === 429) {
        this.rateLimits.push({
          requestsBefore: this.#window.count,
          elapsedMs: receivedAt - this.#window.start,
          retryAfterMs,
        });
        if (retryAfterMs !== undefined) this.#withRetryAfter += 1;
      }
      const waitMs =
        retryAfterMs ??
        backoffWait(
          attempt,
          { firstMs: DEFAULT_RETRY_POLICY.baseDelayMs, capMs: DEFAULT_RETRY_POLICY.maxDelayMs },
          this.#options.random,
        );
      if (waited + waitMs > budget)
        throw new ProbeStopped(
          `GET ${path} answered ${result.status} and waiting ${Math.ceil(waitMs / 1000)} s more would pass the ${Math.round(budget / 1000)} s wait budget`,
        );
      await sleep(waitMs, this.#options.signal);
      waited += waitMs;
      this.#waitedMs += waitMs;
      this.#window = undefined;
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
