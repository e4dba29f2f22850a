import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { didYouMean } from '../catalogue/suggest.js';
import { DEFAULT_HEADER_NAME, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { postWebhook } from './post-webhook.js';
import { RECEIVER_CASE_IDS } from './receiver-case-table.js';
import { RECEIVER_CASES, type ReceiverCase } from './receiver-cases.js';

export interface CheckReceiverOptions {
  url: URL;
  secret: string;
  headerName?: string | undefined;
  toleranceSeconds?: number | undefined;
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
  expected: 'accept' | 'reject';
  status?: number | undefined;
  /** pass: the receiver did what it should; fail: it did not; error: no answer at all. */
  verdict: 'pass' | 'fail' | 'error';
  detail: string;
}

export interface CheckReceiverReport {
  url: string;
  passed: boolean;
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

function judge(expected: 'accept' | 'reject', status: number): { verdict: 'pass' | 'fail'; detail: string } {
  if (expected === 'accept') {
    return status >= 200 && status < 300
      ? { verdict: 'pass', detail: 'accepted' }
      : { verdict: 'fail', detail: `a valid delivery was answered ${status}; it must be accepted with 2xx` };
  }
  if (status >= 400 && status < 500) return { verdict: 'pass', detail: 'rejected' };
  if (status >= 200 && status < 300)
    return { verdict: 'fail', detail: `accepted a forged delivery (${status}); it must be rejected with 4xx` };
  if (status >= 500)
    return { verdict: 'fail', detail: `answered ${status}: the receiver failed instead of rejecting with 4xx` };
  return { verdict: 'fail', detail: `answered ${status}; a forged delivery must be rejected with 4xx` };
}

/**
 * Sends the battery one case at a time (so that a receiver's logs read in order) and reports,
 * per case, what it answered against what it should have.
 */
export async function checkReceiver(options: CheckReceiverOptions): Promise<CheckReceiverReport> {
  const cases = chooseCases(options.only, options.skip);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const results: ReceiverCaseResult[] = [];
  for (const receiverCase of cases) {
    const ctx = {
      secret: options.secret,
      headerName: options.headerName ?? DEFAULT_HEADER_NAME,
      toleranceSeconds,
      nowSeconds: Math.floor((options.now ?? Date.now)() / 1000),
    };
    const delivery = await receiverCase.build(ctx);
    let result: ReceiverCaseResult;
    try {
      const response = await postWebhook({
        url: options.url,
        body: delivery.body,
        headers: delivery.headers,
        timeoutMs: options.timeoutMs,
        dispatcher: options.dispatcher,
        signal: options.signal,
      });
      result = {
        id: receiverCase.id,
        title: receiverCase.title,
        expected: receiverCase.expect,
        status: response.status,
        ...judge(receiverCase.expect, response.status),
      };
    } catch (error) {
      if (!(error instanceof LedgerhookError) || error.code !== 'ERR_NETWORK') throw error;
      // Nothing answered the very first case: the target is down, not the receiver wrong.
      if (results.length === 0) throw error;
      result = {
        id: receiverCase.id,
        title: receiverCase.title,
        expected: receiverCase.expect,
        verdict: 'error',
        detail: error.message,
      };
    }
    results.push(result);
    options.onProgress?.({ type: 'case', result });
  }
  return { url: options.url.href, passed: results.every((r) => r.verdict === 'pass'), cases: results };
}
