import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { DEFAULT_HEADER_NAME, DEFAULT_RECEIVER_SKEW_SECONDS } from '../defaults.js';
import { validateTolerance } from '@ledgerhook/webhooks/advanced';
import { validateVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import { postWebhook } from './post-webhook.js';
import { RECEIVER_CASE_IDS, type ReceiverCaseKind, type ReceiverCaseLevel } from './receiver-case-table.js';
import { RECEIVER_CASES, type ReceiverCase } from './receiver-cases.js';
import { compileRejectMarker, judgeAnswer, type RejectMarker } from './receiver-judge.js';

export type { RejectMarker } from './receiver-judge.js';

export interface CheckReceiverOptions {
  url: URL;
  secret: string;
  headerName?: string | undefined;
  /** What the service puts before the JWT (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  toleranceSeconds?: number | undefined;
  /** Clock difference allowed at the tolerance's edges (near expiry, expired, clock ahead); default 5. */
  skewSeconds?: number | undefined;
  /** Recommended cases fail the check too (by default they are warnings). */
  strict?: boolean | undefined;
  /** What counts as a rejection; default any 4xx. */
  reject?: RejectMarker | undefined;
  only?: readonly string[] | undefined;
  skip?: readonly string[] | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  onProgress?: ((event: { type: 'case'; result: ReceiverCaseResult }) => void) | undefined;
}

export interface ReceiverCaseResult {
  id: string;
  title: string;
  level: ReceiverCaseLevel;
  kind: ReceiverCaseKind;
  expected: 'accept' | 'reject';
  status?: number | undefined;
  /** pass: the receiver did what it should; fail: it did not; error: no answer at all. */
  verdict: 'pass' | 'fail' | 'error';
  /** A recommended case that did not hold, outside strict mode: reported, not failed. */
  warning: boolean;
  detail: string;
}

export interface CheckReceiverReport {
  url: string;
  /** No required case failed (and, when strict, no recommended one). */
  passed: boolean;
  strict: boolean;
  skewSeconds: number;
  rejectWhen: { statuses: readonly string[]; bodyContains?: string | undefined };
  /** Ids of the cases that fail the check. */
  failed: string[];
  /** Ids of the recommended cases that did not hold but only warn. */
  warnings: string[];
  cases: ReceiverCaseResult[];
}

function chooseCases(only: readonly string[] | undefined, skip: readonly string[] | undefined): ReceiverCase[] {
  for (const id of [...(only ?? []), ...(skip ?? [])]) {
    if (!RECEIVER_CASE_IDS.includes(id))
      throw new LedgerhookError(
        'ERR_USAGE',
        `unknown case "${id}"${didYouMean(id, RECEIVER_CASE_IDS)}; cases: ${RECEIVER_CASE_IDS.join(', ')}`,
        { details: { reason: 'unknown_receiver_case', id } },
      );
  }
  const chosen = RECEIVER_CASES.filter((c) => (!only?.length || only.includes(c.id)) && !skip?.includes(c.id));
  if (chosen.length === 0)
    throw new LedgerhookError('ERR_USAGE', 'the chosen and skipped cases leave no case to run', {
      details: { reason: 'no_receiver_case_left' },
    });
  return chosen;
}

function validateSkew(value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new LedgerhookError('ERR_USAGE', `the skew must be a number of seconds >= 0, got ${String(value)}`, {
      details: { reason: 'invalid_skew', value },
    });
  return value;
}

/**
 * Sends the battery one case at a time (so that a receiver's logs read in order) and reports,
 * per case, what it answered against what it should have. Required cases decide the verdict;
 * recommended ones only warn unless `strict`.
 */
export async function checkReceiver(options: CheckReceiverOptions): Promise<CheckReceiverReport> {
  const cases = chooseCases(options.only, options.skip);
  const marker = compileRejectMarker(options.reject);
  const skewSeconds = validateSkew(options.skewSeconds ?? DEFAULT_RECEIVER_SKEW_SECONDS);
  const toleranceSeconds = validateTolerance(options.toleranceSeconds);
  const strict = options.strict === true;
  const verificationPrefix =
    options.verificationPrefix === undefined ? undefined : validateVerificationPrefix(options.verificationPrefix);
  const results: ReceiverCaseResult[] = [];
  for (const receiverCase of cases) {
    const ctx = {
      secret: options.secret,
      headerName: options.headerName ?? DEFAULT_HEADER_NAME,
      verificationPrefix,
      toleranceSeconds,
      skewSeconds,
      nowSeconds: Math.floor((options.now ?? Date.now)() / 1000),
    };
    const delivery = await receiverCase.build(ctx);
    const { id, title, level, kind, expect: expected } = receiverCase;
    let judged: { verdict: 'pass' | 'fail' | 'error'; detail: string; status?: number };
    try {
      const response = await postWebhook({
        url: options.url,
        body: delivery.body,
        headers: delivery.headers,
        timeoutMs: options.timeoutMs,
        dispatcher: options.dispatcher,
        signal: options.signal,
      });
      judged = {
        status: response.status,
        ...judgeAnswer(expected, kind, response.status, response.bodyExcerpt, marker),
      };
    } catch (error) {
      if (!(error instanceof LedgerhookError) || error.code !== 'ERR_NETWORK') throw error;
      // Nothing answered the very first case: the target is down, not the receiver wrong.
      if (results.length === 0) throw error;
      judged = { verdict: 'error', detail: error.message };
    }
    const warning = judged.verdict !== 'pass' && level === 'recommended' && !strict;
    const result: ReceiverCaseResult = { id, title, level, kind, expected, ...judged, warning };
    results.push(result);
    options.onProgress?.({ type: 'case', result });
  }
  const failed = results.filter((r) => r.verdict !== 'pass' && !r.warning).map((r) => r.id);
  return {
    url: options.url.href,
    passed: failed.length === 0,
    strict,
    skewSeconds,
    rejectWhen: { statuses: marker.statuses, bodyContains: marker.bodyContains },
    failed,
    warnings: results.filter((r) => r.warning).map((r) => r.id),
    cases: results,
  };
}
