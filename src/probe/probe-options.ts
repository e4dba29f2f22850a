import type { LabelledSecret } from '@ledgerhook/webhooks';
import type { Dispatcher } from 'undici';
import type { CaptureRecord } from '../capture/capture-record.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_PROBE_MAX_REQUESTS, DEFAULT_REQUEST_TIMEOUT_MS } from '../defaults.js';
import { abortableSleep } from '../http/fetch-json.js';
import type { EnvironmentSettings } from '../settings/environments.js';

export const DEFAULT_PROBE_MAX_WAIT_MS = 60_000;

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What `probeService` takes; every edge (HTTP, clock, sleep) is injected. */
export interface ProbeOptions {
  /** API root, e.g. https://sandbox.example.com/rest/v5 */
  baseUrl: string;
  token: string;
  /** The environment's stored settings: what is set already (defaults apply to the rest). */
  settings?: EnvironmentSettings | undefined;
  /** How much the probe may ask of the service. */
  limits?:
    | {
        /** Requests at most (default 60); a 429 answered and retried counts as one each time. */
        maxRequests?: number | undefined;
        /** How long one request may wait out 429 and 5xx answers in all (default 60 s). */
        maxWaitMs?: number | undefined;
        /** Per request. */
        timeoutMs?: number | undefined;
        maxResponseBytes?: number | undefined;
      }
    | undefined;
  /** Captured deliveries (`--capture`) to learn the webhooks from: their header, prefix, iat against receipt, bodies, secret. */
  webhooks?:
    | {
        captures: readonly CaptureRecord[];
        /** Secrets to try on the captured deliveries, labelled by where they are stored (never printed). */
        secrets?: readonly LabelledSecret[] | undefined;
        /** The label among `secrets` of the environment probed: deliveries verified by another one are said so. */
        environment?: string | undefined;
      }
    | undefined;
  dispatcher?: Dispatcher | undefined;
  /** Clock in ms since the epoch. */
  now?: (() => number) | undefined;
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
  /** Each request as it is made (a progress line). */
  onRequest?: ((event: { requests: number; path: string }) => void) | undefined;
}

/** probeService's options with every default applied. */
export interface ResolvedProbeOptions {
  /** Without trailing slashes. */
  baseUrl: string;
  token: string;
  settings: EnvironmentSettings;
  limits: { maxRequests: number; maxWaitMs: number; timeoutMs: number; maxResponseBytes: number };
  webhooks:
    | { captures: readonly CaptureRecord[]; secrets: readonly LabelledSecret[]; environment: string | undefined }
    | undefined;
  dispatcher: Dispatcher | undefined;
  now: () => number;
  sleep: Sleep;
  random: () => number;
  signal: AbortSignal | undefined;
  onRequest: ((event: { requests: number; path: string }) => void) | undefined;
}

export function normalizeProbeOptions(options: ProbeOptions): ResolvedProbeOptions {
  const { limits = {}, webhooks } = options;
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    token: options.token,
    settings: { ...options.settings },
    limits: {
      maxRequests: limits.maxRequests ?? DEFAULT_PROBE_MAX_REQUESTS,
      maxWaitMs: limits.maxWaitMs ?? DEFAULT_PROBE_MAX_WAIT_MS,
      timeoutMs: limits.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      maxResponseBytes: limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
    webhooks: webhooks && {
      captures: webhooks.captures,
      secrets: webhooks.secrets ?? [],
      environment: webhooks.environment,
    },
    dispatcher: options.dispatcher,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    signal: options.signal,
    onRequest: options.onRequest,
  };
}
