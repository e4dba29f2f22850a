import type { Dispatcher } from 'undici';
import type { OutgoingDelivery } from '../delivery/build-delivery.js';
import { DEFAULT_CONSUMER_BURST, DEFAULT_CONSUMER_SETTLE_MS, DEFAULT_DELIVERY_TIMEOUT_MS } from '../defaults.js';
import type { CheckReceiverReport } from '../delivery/check-receiver.js';
import {
  type DeliverySigning,
  normalizeDeliverySigning,
  type ResolvedDeliverySigning,
} from '../delivery/delivery-signing.js';
import { postWebhook } from '../delivery/post-webhook.js';
import { delay } from '../util/delay.js';
import { checkTiming, chooseCases } from './consumer-check-input.js';
import type { ConsumerCaseResult } from './consumer-report.js';
import type { StateReader } from './state-reader.js';

export type CheckConsumerEvent =
  | { type: 'started'; apiUrl: string; token: string; userId: string }
  | { type: 'receiver'; report: CheckReceiverReport }
  | { type: 'bring-back'; before: string }
  | { type: 'case-start'; id: string; title: string }
  | { type: 'case'; result: ConsumerCaseResult };

/** Sends one delivery to the consumer; the default POSTs it to `to`. */
export type DeliverySender = (delivery: OutgoingDelivery) => Promise<{ status: number; excerpt: string }>;

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface CheckConsumerOptions {
  /** The consumer's webhook URL. */
  to: URL;
  signing: DeliverySigning;
  /**
   * Reads what the consumer's store holds (see state-document.ts for the shape); `label` says where the
   * state comes from, for messages. `stateSource(text)` gives both.
   */
  state: { read: StateReader; label?: string | undefined };
  cases?:
    | {
        only?: readonly string[] | undefined;
        skip?: readonly string[] | undefined;
        /**
         * Runs the check-receiver battery (forged, altered and invalid deliveries) against `to` first; the
         * cases themselves send only valid deliveries.
         */
        withReceiverChecks?: boolean | undefined;
      }
    | undefined;
  limits?:
    | {
        /** How long each case waits for the store to equal the service; default 10 s. */
        settleMs?: number | undefined;
        /** Deliveries of the burst case; default 500. */
        burst?: number | undefined;
        /** Per delivery (default sender only). */
        timeoutMs?: number | undefined;
      }
    | undefined;
  /** The emulated service: by default where `ledgerhook mock` listens, with its token and user. */
  mock?: { port?: number | undefined; host?: string | undefined; userId?: string | undefined } | undefined;
  send?: DeliverySender | undefined;
  dispatcher?: Dispatcher | undefined;
  /** Clock in milliseconds since the epoch. */
  now?: (() => number) | undefined;
  sleep?: Sleep | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: CheckConsumerEvent) => void) | undefined;
}

/** checkConsumer's options with every default applied and every setting checked. */
export interface ResolvedCheckConsumerOptions {
  to: URL;
  signing: ResolvedDeliverySigning;
  state: { read: StateReader; label: string };
  cases: { run: ReturnType<typeof chooseCases>; withReceiverChecks: boolean };
  limits: { settleMs: number; burst: number; timeoutMs: number };
  mock: NonNullable<CheckConsumerOptions['mock']>;
  send: DeliverySender;
  dispatcher: Dispatcher | undefined;
  now: () => number;
  sleep: Sleep;
  signal: AbortSignal | undefined;
  onProgress: ((event: CheckConsumerEvent) => void) | undefined;
}

/** Resolved once, before the service starts: a wrong setting sends nothing. */
export function normalizeCheckConsumerOptions(options: CheckConsumerOptions): ResolvedCheckConsumerOptions {
  const cases = options.cases ?? {};
  const run = chooseCases(cases.only, cases.skip);
  const signing = normalizeDeliverySigning(options.signing);
  const limits = {
    settleMs: options.limits?.settleMs ?? DEFAULT_CONSUMER_SETTLE_MS,
    burst: options.limits?.burst ?? DEFAULT_CONSUMER_BURST,
    timeoutMs: options.limits?.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
  };
  checkTiming(limits.settleMs, signing.toleranceSeconds, signing.skewSeconds, limits.burst);
  const { to, dispatcher, signal } = options;
  return {
    to,
    signing,
    state: { read: options.state.read, label: options.state.label ?? 'the state reader' },
    cases: { run, withReceiverChecks: cases.withReceiverChecks === true },
    limits,
    mock: options.mock ?? {},
    send:
      options.send ??
      (async (delivery) => {
        const { body, headers } = delivery;
        const answer = await postWebhook({ url: to, body, headers, timeoutMs: limits.timeoutMs, dispatcher, signal });
        return { status: answer.status, excerpt: answer.bodyExcerpt };
      }),
    dispatcher,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? delay,
    signal,
    onProgress: options.onProgress,
  };
}
