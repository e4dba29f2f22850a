/**
 * consumer-check/: `check-consumer` drives the user's own consumer from the mock and compares its
 * store with the mock's data (this file). consumer-case-table.ts is the battery as data (each case
 * with the bug it catches), consumer-cases.ts and race-cases.ts its steps (read-watch.ts: the
 * consumer's reads and when it is idle), settle.ts and bring-back.ts the waits and the equal start of
 * each case; the store is read by a command or a loopback URL (state-*.ts), as untrusted input.
 */
import { type CheckReceiverReport, checkReceiver } from '../delivery/check-receiver.js';
import { LedgerhookError } from '../errors.js';
import { startMockServer } from '../mock/mock-server.js';
import { bringBack } from './bring-back.js';
import {
  type CheckConsumerOptions,
  normalizeCheckConsumerOptions,
  type ResolvedCheckConsumerOptions,
} from './check-consumer-options.js';
import { CONSUMER_CASE_STEPS } from './consumer-cases.js';
import {
  type CheckConsumerReport,
  type ConsumerCaseResult,
  caseResult,
  newTally,
  skippedResult,
} from './consumer-report.js';
import { type ConsumerRun, caseContext } from './consumer-run.js';
import { ReadWatch } from './read-watch.js';
import { compareState, type Settled } from './settle.js';

export type { CheckConsumerEvent, CheckConsumerOptions, DeliverySender } from './check-consumer-options.js';
export type { CheckConsumerReport, ConsumerCaseResult } from './consumer-report.js';

/** The mock on the address `ledgerhook mock` uses: a port already taken is named as such. */
async function startService({ mock }: ResolvedCheckConsumerOptions) {
  try {
    return await startMockServer({ port: mock.port, host: mock.host, userId: mock.userId });
  } catch (error) {
    if (error instanceof LedgerhookError && error.details.reason === 'port_in_use')
      throw new LedgerhookError('ERR_USAGE', `${error.message}: the emulated service cannot listen there`, {
        cause: error,
        details: { ...error.details, reason: 'mock_port_in_use' },
      });
    throw error;
  }
}

/** The battery of forged, altered and invalid deliveries, with the same settings as the cases. */
function receiverChecks(options: ResolvedCheckConsumerOptions): Promise<CheckReceiverReport> {
  const { to, signing, limits, dispatcher, signal, now } = options;
  return checkReceiver({ url: to, signing, limits: { timeoutMs: limits.timeoutMs }, dispatcher, signal, now });
}

/**
 * Drives the user's consumer from an emulated service the way a real one misbehaves (duplicates, reversed
 * order, reads that race with changes, a burst, a lost webhook, a retype out of a filter, a rate limit, a
 * delivery near expiry) and, after each case, waits until the consumer's own store equals the service's
 * data, or says what differs. Each case starts from an equal store, or is reported as not run.
 */
export async function checkConsumer(input: CheckConsumerOptions): Promise<CheckConsumerReport> {
  const options = normalizeCheckConsumerOptions(input);
  const { now, sleep, signal, state, limits } = options;
  const mock = await startService(options);
  const { service } = mock;
  const reads = new ReadWatch(service.answers, { now, sleep: (ms) => sleep(ms, signal) });
  try {
    const userId = service.userId;
    const known = new Set<string>();
    const ignored = new Set<string>();
    // Every ENTITY_UPDATE of a user has the same body, so two signed in one second are the same bytes and
    // token. A case's own delivery gets a second no earlier delivery used, so that a consumer which skips
    // what it has seen fails the case made for that (duplicate-after-change, burst), not a later one.
    const usedIats = new Set<number>();
    const stateLabel = state.label;
    const run: ConsumerRun = {
      options,
      service,
      userId,
      compare: (document, listed) => compareState(document, { service, userId, stateLabel, known, ignored }, listed),
      reads,
      freshIat: () => {
        let iat = Math.floor(now() / 1000);
        while (usedIats.has(iat)) iat -= 1;
        usedIats.add(iat);
        return iat;
      },
      useIat: (iat) => usedIats.add(iat),
    };
    // A state that cannot be read at all is the user's to fix before anything is sent.
    run.compare(await state.read(signal));
    options.onProgress?.({ type: 'started', apiUrl: mock.url, token: mock.token, userId });
    const receiver = options.cases.withReceiverChecks ? await receiverChecks(options) : null;
    if (receiver) options.onProgress?.({ type: 'receiver', report: receiver });
    const results: ConsumerCaseResult[] = [];
    /** The store as the last case (or attempt to bring it back) left it, and which case that was. */
    let last: { settled: Settled; after: string; broughtBack: boolean } | undefined;
    for (const row of options.cases.run) {
      // A read an earlier case left running could meet this case's change: the consumer starts each case idle.
      if (last) await stopping(reads.idle(limits.settleMs), row.id, signal);
      const differed = last !== undefined && !last.settled.converged;
      if (last && differed) {
        if (!last.broughtBack) {
          options.onProgress?.({ type: 'bring-back', before: row.id });
          last = { ...last, settled: await stopping(bringBack(run), row.id, signal), broughtBack: true };
        }
        if (!last.settled.converged) {
          const result = skippedResult(row, last.settled, last.after);
          results.push(result);
          options.onProgress?.({ type: 'case', result });
          continue;
        }
      }
      options.onProgress?.({ type: 'case-start', id: row.id, title: row.title });
      const tally = newTally();
      const started = now();
      if (last && differed) tally.notes.push(`it started from a store brought back to the service after ${last.after}`);
      const ctx = caseContext(run, tally, { first: row.id === 'baseline' });
      const settled = await stopping(CONSUMER_CASE_STEPS[row.id](ctx), row.id, signal);
      const result = caseResult(row, settled, tally, { elapsedMs: now() - started, settleMs: limits.settleMs, userId });
      results.push(result);
      options.onProgress?.({ type: 'case', result });
      last = { settled, after: row.id, broughtBack: false };
    }
    const failed = results.filter((r) => r.failed).map((r) => r.id);
    const notRun = results.filter((r) => r.verdict === 'skipped').map((r) => r.id);
    const unproven = results.some((r) => r.verdict === 'skipped' && r.level === 'required');
    return {
      to: options.to.href,
      apiUrl: mock.url,
      token: mock.token,
      userId,
      state: stateLabel,
      settleMs: limits.settleMs,
      burst: limits.burst,
      passed: failed.length === 0 && !unproven && (receiver?.passed ?? true),
      failed,
      limitations: results.filter((r) => r.level === 'limitation' && r.verdict === 'not-converged').map((r) => r.id),
      notRun,
      ignoredDatasets: [...ignored].sort(),
      cases: results,
      receiver,
    };
  } finally {
    reads.close();
    await mock.close();
  }
}

/** A step stopped mid-way (Ctrl-C): whatever it waited on rejected with the signal's reason. */
function stopping<T>(step: Promise<T>, id: string, signal: AbortSignal | undefined): Promise<T> {
  return step.catch((error: unknown) => {
    if (signal?.aborted && !(error instanceof LedgerhookError && error.code === 'ERR_ABORTED'))
      throw new LedgerhookError('ERR_ABORTED', `stopped during ${id}`, { cause: error });
    throw error;
  });
}
