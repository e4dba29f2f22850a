import type { Dispatcher } from 'undici';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { type DeliverySigning, normalizeDeliverySigning, type ResolvedDeliverySigning } from './delivery-signing.js';
import { RECEIVER_CASE_IDS, type ReceiverCaseKind, type ReceiverCaseLevel } from './receiver-case-table.js';
import { RECEIVER_CASES, type ReceiverCase } from './receiver-cases.js';
import { type CompiledRejectMarker, compileRejectMarker, type RejectMarker } from './receiver-judge.js';

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

export interface CheckReceiverOptions {
  url: URL;
  signing: DeliverySigning;
  /** Which cases run, and how their answers are judged. */
  cases?:
    | {
        only?: readonly string[] | undefined;
        skip?: readonly string[] | undefined;
        /** Recommended cases fail the check too (by default they are warnings). */
        strict?: boolean | undefined;
        /** What counts as a rejection; default any 4xx. */
        reject?: RejectMarker | undefined;
      }
    | undefined;
  /** `timeoutMs`: per delivery. */
  limits?: { timeoutMs?: number | undefined } | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  onProgress?: ((event: { type: 'case'; result: ReceiverCaseResult }) => void) | undefined;
}

/** checkReceiver's options with every default applied and every setting checked. */
export interface ResolvedCheckReceiverOptions {
  url: URL;
  signing: ResolvedDeliverySigning;
  cases: { run: readonly ReceiverCase[]; strict: boolean; reject: CompiledRejectMarker };
  limits: { timeoutMs: number };
  dispatcher: Dispatcher | undefined;
  signal: AbortSignal | undefined;
  now: () => number;
  onProgress: ((event: { type: 'case'; result: ReceiverCaseResult }) => void) | undefined;
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

/** Resolved once, before the first case is sent: a wrong setting sends nothing. */
export function normalizeCheckReceiverOptions(options: CheckReceiverOptions): ResolvedCheckReceiverOptions {
  const cases = options.cases ?? {};
  const run = chooseCases(cases.only, cases.skip);
  const reject = compileRejectMarker(cases.reject);
  return {
    url: options.url,
    signing: normalizeDeliverySigning(options.signing),
    cases: { run, strict: cases.strict === true, reject },
    limits: { timeoutMs: options.limits?.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS },
    dispatcher: options.dispatcher,
    signal: options.signal,
    now: options.now ?? Date.now,
    onProgress: options.onProgress,
  };
}
