import { LedgerhookError } from '../errors.js';
import {
  type CheckReceiverOptions,
  normalizeCheckReceiverOptions,
  type ReceiverCaseResult,
} from './check-receiver-options.js';
import { postWebhook } from './post-webhook.js';
import { judgeAnswer } from './receiver-judge.js';

export type { CheckReceiverOptions, ReceiverCaseResult } from './check-receiver-options.js';
export type { RejectMarker } from './receiver-judge.js';

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

/**
 * Sends the battery one case at a time (so that a receiver's logs read in order) and reports,
 * per case, what it answered against what it should have. Required cases decide the verdict;
 * recommended ones only warn unless `strict`.
 */
export async function checkReceiver(input: CheckReceiverOptions): Promise<CheckReceiverReport> {
  const options = normalizeCheckReceiverOptions(input);
  const { signing, cases } = options;
  const results: ReceiverCaseResult[] = [];
  for (const receiverCase of cases.run) {
    const delivery = await receiverCase.build({ ...signing, nowSeconds: Math.floor(options.now() / 1000) });
    const { id, title, level, kind, expect: expected } = receiverCase;
    let judged: { verdict: 'pass' | 'fail' | 'error'; detail: string; status?: number };
    try {
      const response = await postWebhook({
        url: options.url,
        body: delivery.body,
        headers: delivery.headers,
        timeoutMs: options.limits.timeoutMs,
        dispatcher: options.dispatcher,
        signal: options.signal,
      });
      judged = {
        status: response.status,
        ...judgeAnswer(expected, kind, response.status, response.bodyExcerpt, cases.reject),
      };
    } catch (error) {
      if (!(error instanceof LedgerhookError) || error.code !== 'ERR_NETWORK') throw error;
      // Nothing answered the very first case: the target is down, not the receiver wrong.
      if (results.length === 0) throw error;
      judged = { verdict: 'error', detail: error.message };
    }
    const warning = judged.verdict !== 'pass' && level === 'recommended' && !cases.strict;
    const result: ReceiverCaseResult = { id, title, level, kind, expected, ...judged, warning };
    results.push(result);
    options.onProgress?.({ type: 'case', result });
  }
  const failed = results.filter((r) => r.verdict !== 'pass' && !r.warning).map((r) => r.id);
  return {
    url: options.url.href,
    passed: failed.length === 0,
    strict: cases.strict,
    skewSeconds: signing.skewSeconds,
    rejectWhen: { statuses: cases.reject.statuses, bodyContains: cases.reject.bodyContains },
    failed,
    warnings: results.filter((r) => r.warning).map((r) => r.id),
    cases: results,
  };
}
