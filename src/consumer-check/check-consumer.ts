import type { Dispatcher } from 'undici';
import {
  DEFAULT_CONSUMER_BURST,
  DEFAULT_CONSUMER_SETTLE_MS,
  DEFAULT_HEADER_NAME,
  DEFAULT_RECEIVER_SKEW_SECONDS,
} from '../defaults.js';
import { buildDelivery, type BuildDeliveryOptions, type OutgoingDelivery } from '../delivery/build-delivery.js';
import { postWebhook } from '../delivery/post-webhook.js';
import { LedgerhookError } from '../errors.js';
import { startMockServer } from '../mock/mock-server.js';
import { delay } from '../util/delay.js';
import { validateTolerance } from '../webhook/tolerance.js';
import { validateVerificationPrefix } from '../webhook/verification-prefix.js';
import { checkTiming, chooseCases } from './consumer-check-input.js';
import { type CaseContext, CONSUMER_CASE_STEPS } from './consumer-cases.js';
import {
  type CheckConsumerReport,
  type ConsumerCaseResult,
  caseResult,
  newTally,
  skippedResult,
  type Tally,
} from './consumer-report.js';
import { compareState, DRIVEN_ENTITY, settle } from './settle.js';
import type { StateReader } from './state-reader.js';

export type { CheckConsumerReport, ConsumerCaseResult } from './consumer-report.js';

/** Sends one delivery to the consumer; the default POSTs it to `to`. */
export type DeliverySender = (delivery: OutgoingDelivery) => Promise<{ status: number; excerpt: string }>;

export type CheckConsumerEvent =
  | { type: 'started'; apiUrl: string; token: string; userId: string }
  | { type: 'case-start'; id: string; title: string }
  | { type: 'case'; result: ConsumerCaseResult };

export interface CheckConsumerOptions {
  /** The consumer's webhook URL. */
  to: URL;
  secret: string;
  headerName?: string | undefined;
  verificationPrefix?: string | undefined;
  toleranceSeconds?: number | undefined;
  skewSeconds?: number | undefined;
  /** Reads what the consumer's store holds (see state-document.ts for the shape). */
  readState: StateReader;
  /** Where the state comes from, for messages. */
  stateLabel?: string | undefined;
  /** How long each case waits for the store to equal the service; default 10 s. */
  settleMs?: number | undefined;
  /** Deliveries of the burst case; default 500. */
  burst?: number | undefined;
  only?: readonly string[] | undefined;
  skip?: readonly string[] | undefined;
  /** The emulated service: by default where `ledgerhook mock` listens, with its token and user. */
  mock?: { port?: number | undefined; host?: string | undefined; userId?: string | undefined } | undefined;
  send?: DeliverySender | undefined;
  /** Per delivery (default sender only). */
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: CheckConsumerEvent) => void) | undefined;
}

function defaultSender(options: CheckConsumerOptions): DeliverySender {
  return async (delivery) => {
    const answer = await postWebhook({
      url: options.to,
      body: delivery.body,
      headers: delivery.headers,
      timeoutMs: options.timeoutMs,
      dispatcher: options.dispatcher,
      signal: options.signal,
    });
    return { status: answer.status, excerpt: answer.bodyExcerpt };
  };
}

/** The mock on the address `ledgerhook mock` uses: a port already taken is named as such. */
async function startService(options: CheckConsumerOptions) {
  try {
    return await startMockServer({ port: options.mock?.port, host: options.mock?.host, userId: options.mock?.userId });
  } catch (error) {
    if (error instanceof LedgerhookError && error.details.reason === 'port_in_use')
      throw new LedgerhookError('ERR_USAGE', `${error.message}: the emulated service cannot listen there`, {
        cause: error,
        details: { ...error.details, reason: 'mock_port_in_use' },
      });
    throw error;
  }
}

/**
 * Drives the user's consumer from an emulated service the way a real one misbehaves (duplicates, reversed
 * order, a burst, a lost webhook, a retype out of a filter, a rate limit, a delivery near expiry) and,
 * after each case, waits until the consumer's own store equals the service's data, or says what differs.
 */
export async function checkConsumer(options: CheckConsumerOptions): Promise<CheckConsumerReport> {
  const cases = chooseCases(options.only, options.skip);
  const toleranceSeconds = validateTolerance(options.toleranceSeconds);
  const skewSeconds = options.skewSeconds ?? DEFAULT_RECEIVER_SKEW_SECONDS;
  const settleMs = options.settleMs ?? DEFAULT_CONSUMER_SETTLE_MS;
  const burst = options.burst ?? DEFAULT_CONSUMER_BURST;
  checkTiming(settleMs, toleranceSeconds, skewSeconds, burst);
  const verificationPrefix =
    options.verificationPrefix === undefined ? undefined : validateVerificationPrefix(options.verificationPrefix);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? delay;
  const sender = options.send ?? defaultSender(options);
  const stateLabel = options.stateLabel ?? 'the state reader';
  const mock = await startService(options);
  try {
    const { service } = mock;
    const userId = service.userId;
    const known = new Set<string>();
    const ignored = new Set<string>();
    const compare = (document: unknown) => compareState(document, { service, userId, stateLabel, known, ignored });
    // A state that cannot be read at all is the user's to fix before anything is sent.
    compare(await options.readState(options.signal));
    options.onProgress?.({ type: 'started', apiUrl: mock.url, token: mock.token, userId });
    const body = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: [DRIVEN_ENTITY] });
    // Every ENTITY_UPDATE of a user has the same body, so two signed in one second are the same bytes and
    // token. A case's own delivery gets a second no earlier delivery used, so that a consumer which skips
    // what it has seen fails the case made for that (duplicate-after-change, burst), not a later one.
    const usedIats = new Set<number>();
    const freshIat = () => {
      let iat = Math.floor(now() / 1000);
      while (usedIats.has(iat)) iat -= 1;
      usedIats.add(iat);
      return iat;
    };
    const results: ConsumerCaseResult[] = [];
    for (const row of cases) {
      if (results[0]?.verdict !== undefined && results[0].verdict !== 'converged') {
        results.push(skippedResult(row));
        continue;
      }
      options.onProgress?.({ type: 'case-start', id: row.id, title: row.title });
      const tally: Tally = newTally();
      const started = now();
      const ctx: CaseContext = {
        mutate: (spec) => service.mutate({ path: '/expenses', ...spec }),
        delivery: (iat) => {
          const build: BuildDeliveryOptions = { body, secret: options.secret, iat: iat ?? freshIat(), now };
          usedIats.add(build.iat ?? 0);
          build.headerName = options.headerName ?? DEFAULT_HEADER_NAME;
          if (verificationPrefix) build.verificationPrefix = verificationPrefix;
          return buildDelivery(build);
        },
        send: async (delivery) => {
          await sendCounted(sender, delivery, tally);
          // Nothing answered the very first delivery: the consumer is not there, not wrong; no wait.
          if (row.id === 'baseline' && tally.firstNetworkError) throw tally.firstNetworkError;
        },
        settle: () => settle({ readState: options.readState, compare, settleMs, now, sleep, signal: options.signal }),
        setFaults: (faults) => service.setFaults(faults),
        freshIat,
        nowSeconds: () => Math.floor(now() / 1000),
        toleranceSeconds,
        skewSeconds,
        burst,
        note: (text) => tally.notes.push(text),
        stopped: () => options.signal?.aborted === true,
      };
      const settled = await CONSUMER_CASE_STEPS[row.id](ctx).catch((error: unknown) => {
        // Stopped mid-case: whatever the step was waiting on rejected with the signal's reason.
        if (options.signal?.aborted && !(error instanceof LedgerhookError && error.code === 'ERR_ABORTED'))
          throw new LedgerhookError('ERR_ABORTED', `stopped during ${row.id}`, { cause: error });
        throw error;
      });
      const result = caseResult(row, settled, tally, { elapsedMs: now() - started, settleMs, userId });
      results.push(result);
      options.onProgress?.({ type: 'case', result });
    }
    const failed = results.filter((r) => r.failed).map((r) => r.id);
    return {
      to: options.to.href,
      apiUrl: mock.url,
      token: mock.token,
      userId,
      state: stateLabel,
      settleMs,
      burst,
      passed: failed.length === 0,
      failed,
      limitations: results.filter((r) => r.level === 'limitation' && r.verdict === 'not-converged').map((r) => r.id),
      ignoredDatasets: [...ignored].sort(),
      cases: results,
    };
  } finally {
    await mock.close();
  }
}

/** One delivery sent and its answer counted; a network failure is counted, anything else thrown. */
async function sendCounted(sender: DeliverySender, delivery: OutgoingDelivery, tally: Tally): Promise<void> {
  tally.sent += 1;
  try {
    const answer = await sender(delivery);
    const status = String(answer.status);
    tally.statusCounts[status] = (tally.statusCounts[status] ?? 0) + 1;
    if (answer.status < 200 || answer.status >= 300)
      tally.firstRefusal ??= `${status} ${answer.excerpt.replace(/\s+/g, ' ').slice(0, 120)}`.trim();
  } catch (error) {
    if (!(error instanceof LedgerhookError) || error.code !== 'ERR_NETWORK') throw error;
    tally.networkErrors += 1;
    tally.firstNetworkError ??= error;
  }
}
