import type { CheckReceiverReport } from '../delivery/check-receiver.js';
import { LedgerhookError } from '../errors.js';
import { plural } from '../util/plural.js';
import { type DatasetDifference, describeDifference } from './compare-datasets.js';
import type { ConsumerCaseLevel } from './consumer-case-table.js';
import { DRIVEN_ENTITY, type Settled } from './settle.js';
import { quoted } from './state-document.js';

/**
 * converged: the consumer's store equalled the service within the settle time.
 * not-converged: it did not; fails a required case, is the expected outcome of a limitation case.
 * error: the state could not be read at the deadline (the check cannot tell); fails the check.
 * skipped: not run, because the store already differed from the service before it (an earlier case did
 * not converge and the store could not be brought back): its difference would be inherited.
 */
export type ConsumerVerdict = 'converged' | 'not-converged' | 'error' | 'skipped';

export interface ConsumerCaseResult {
  id: string;
  title: string;
  level: ConsumerCaseLevel;
  verdict: ConsumerVerdict;
  /** Counts against the check: a required case that did not converge, or any error. */
  failed: boolean;
  /** The whole case: its changes, its deliveries and its waits. */
  elapsedMs: number;
  /** From the case's last delivery answered (or last change) to the store being equal; null when it never was. */
  convergedAfterMs: number | null;
  deliveries: { sent: number; statusCounts: Record<string, number>; networkErrors: number };
  /** The datasets compared at the end of the case. */
  datasets: string[];
  /** What still differed at the end (empty when converged). */
  difference: DatasetDifference[];
  /** One line for people: how it ended, what differed, how the consumer answered, notes. */
  detail: string;
}

/** The answers one case got from the consumer. */
export interface Tally {
  sent: number;
  statusCounts: Record<string, number>;
  networkErrors: number;
  firstRefusal?: string | undefined;
  firstNetworkError?: LedgerhookError | undefined;
  notes: string[];
}

export const newTally = (): Tally => ({ sent: 0, statusCounts: {}, networkErrors: 0, notes: [] });

const seconds = (ms: number) => `${(Math.round(ms / 100) / 10).toFixed(1)} s`;

function answers(tally: Tally): string[] {
  const parts: string[] = [];
  const refused = Object.entries(tally.statusCounts).filter(([status]) => !/^2\d\d$/.test(status));
  if (refused.length > 0) {
    const counts = refused.map(([status, n]) => `${status} to ${n}`).join(', ');
    parts.push(
      `the consumer answered ${counts} of ${plural(tally.sent, 'delivery', 'deliveries')} (${tally.firstRefusal ?? ''})`,
    );
  }
  if (tally.networkErrors > 0)
    parts.push(
      `${tally.networkErrors} of ${plural(tally.sent, 'delivery', 'deliveries')} got no answer (${tally.firstNetworkError?.message ?? ''})`,
    );
  return parts;
}

/** The result of one case that ran, from its final wait and the answers it got. */
export function caseResult(
  row: { id: string; title: string; level: ConsumerCaseLevel },
  settled: Settled,
  tally: Tally,
  context: { elapsedMs: number; settleMs: number; userId: string },
): ConsumerCaseResult {
  const verdict: ConsumerVerdict = settled.converged
    ? 'converged'
    : settled.readError !== undefined
      ? 'error'
      : 'not-converged';
  const how = settled.converged
    ? `converged in ${seconds(context.elapsedMs)}`
    : settled.datasets.length === 0
      ? `the state holds no ${DRIVEN_ENTITY} dataset for user ${quoted(context.userId)} (a key such as /expenses)`
      : `not converged within ${seconds(context.settleMs)}: ${settled.difference.map((d) => describeDifference(d)).join('; ')}`;
  const parts = [how];
  if (settled.readError !== undefined) parts.push(`the last read of the state failed: ${settled.readError}`);
  parts.push(...answers(tally), ...tally.notes);
  return {
    id: row.id,
    title: row.title,
    level: row.level,
    verdict,
    failed: verdict === 'error' || (verdict === 'not-converged' && row.level === 'required'),
    elapsedMs: Math.round(context.elapsedMs),
    convergedAfterMs: settled.converged ? Math.round(settled.waitedMs) : null,
    deliveries: { sent: tally.sent, statusCounts: tally.statusCounts, networkErrors: tally.networkErrors },
    datasets: settled.datasets,
    difference: settled.converged ? [] : settled.difference,
    detail: parts.join('; '),
  };
}

/** A case not run: the store differed before it (`before`: the last look at it). */
export function skippedResult(
  row: { id: string; title: string; level: ConsumerCaseLevel },
  before: Settled,
  after: string,
): ConsumerCaseResult {
  const how =
    before.readError !== undefined
      ? `the state could not be read: ${before.readError}`
      : before.difference.length > 0
        ? before.difference.map((d) => describeDifference(d)).join('; ')
        : 'no expense dataset in the state';
  return {
    ...row,
    verdict: 'skipped',
    failed: false,
    elapsedMs: 0,
    convergedAfterMs: null,
    deliveries: { sent: 0, statusCounts: {}, networkErrors: 0 },
    datasets: before.datasets,
    difference: before.difference,
    detail: `not run: the store already differed before it (${how}), since ${after}`,
  };
}

export interface CheckConsumerReport {
  /** The consumer's webhook URL. */
  to: string;
  /** The emulated service the consumer must read from, and the token it accepts. */
  apiUrl: string;
  token: string;
  userId: string;
  /** Where the state was read: the URL, or the command as given. */
  state: string;
  settleMs: number;
  burst: number;
  /** No required case failed or was left not run, no case ended in error, and the receiver checks (if run) held. */
  passed: boolean;
  /** Ids of the cases that fail the check. */
  failed: string[];
  /** Ids of the limitation cases that did not converge, as expected. */
  limitations: string[];
  /** Ids of the cases not run: the store differed before them and could not be brought back. */
  notRun: string[];
  /** Datasets of the state the battery does not drive (other entities): never compared. */
  ignoredDatasets: string[];
  cases: ConsumerCaseResult[];
  /**
   * The check-receiver battery (forged, altered and invalid deliveries), when it ran first
   * (`withReceiverChecks`); null otherwise: the cases above send only valid deliveries.
   */
  receiver: CheckReceiverReport | null;
}

/** The check's own failure, with the report beside it (the CLI prints both). */
export function notConverged(report: CheckConsumerReport): LedgerhookError {
  const unread = report.cases.some((r) => r.verdict === 'error');
  const wrong = report.receiver?.failed ?? [];
  const parts = [
    wrong.length > 0 ? `the receiver got ${plural(wrong.length, 'case')} wrong: ${wrong.join(', ')}` : '',
    report.failed.length > 0
      ? `the consumer did not converge${unread ? ' (or its state could not be read)' : ''} in ${plural(report.failed.length, 'case')}: ${report.failed.join(', ')}`
      : '',
    report.failed.length === 0 && report.notRun.length > 0
      ? `${plural(report.notRun.length, 'case')} not run, the store differing before them: ${report.notRun.join(', ')}`
      : '',
  ];
  return new LedgerhookError('ERR_CHECK_FAILED', parts.filter(Boolean).join('; '), {
    details: { reason: 'consumer_not_converged', failed: report.failed, receiverFailed: wrong },
  });
}
