import type { Dispatcher } from 'undici';
import type { RetryPolicy, SharedBackoff } from './retry-policy.js';

/** What fetchJson takes: apart from fetch-json.ts so that one attempt (fetch-attempt.ts) is typed by it without a cycle. */
export interface FetchJsonOptions {
  url: URL;
  headers: Record<string, string>;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  retry?: RetryPolicy | undefined;
  backoff?: SharedBackoff | undefined;
  now?: (() => number) | undefined;
  random?: (() => number) | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Per request (each attempt), headers and body together. */
  timeoutMs?: number | undefined;
  maxResponseBytes?: number | undefined;
  onRetry?:
    | ((event: { attempt: number; waitMs: number; reason: string; rateLimited?: boolean | undefined }) => void)
    | undefined;
  /**
   * Given a 200's bytes before they are parsed (each attempt's): a paginated read sends its next
   * request meanwhile. What it throws ends the fetch as is.
   */
  beforeParse?: ((bytes: Buffer) => Promise<void> | undefined) | undefined;
}
