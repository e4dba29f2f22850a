import type { Dispatcher } from 'undici';
import {
  DEFAULT_MAX_RECORDED_BODY_BYTES,
  DEFAULT_MAX_RECORDING_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import type { ListenerOptions } from '../listen/listener.js';
import type { Redactor } from '../redact/redactor.js';
import type { RecordedExchange } from './recording-format.js';

/** The webhook listener of a recording: listen's options, but the capture and its redaction are the recording's. */
export type RecordingListenerOptions = Omit<ListenerOptions, 'capture' | 'subscribers'>;

/** A request answered by the proxy itself (not forwarded), with why. */
export type RecordingRefusal = { method: string; path: string; status: number; reason: string };

export interface RecordingOptions {
  /** The API root every request is forwarded to (http or https, no credentials, no query). */
  baseUrl: string;
  /** The entity list paths that differ from the catalogue's (`paths.expense`), kept in the header for the replay. */
  paths?: Readonly<Partial<Record<string, string>>> | undefined;
  /** Where and how the recording is written. */
  output: {
    /** The recording's directory (created; an existing recording in it is never touched). */
    dir: string;
    redactor: Redactor;
    /** fdatasync each batch of lines. */
    sync?: boolean | undefined;
    /** The timeline file's size limit. */
    maxBytes?: number | undefined;
    /** An answer body larger than this is forwarded but not recorded. */
    maxRecordedBodyBytes?: number | undefined;
  };
  /** Where the proxy listens. */
  port?: number | undefined;
  host?: string | undefined;
  /** A webhook listener in the same run, recording into the same timeline. */
  listener?: RecordingListenerOptions | undefined;
  /** How long and how large one forwarded request may be. */
  limits?:
    | {
        timeoutMs?: number | undefined;
        /** An answer larger than this is refused (502), never buffered. */
        maxResponseBytes?: number | undefined;
      }
    | undefined;
  dispatcher?: Dispatcher | undefined;
  now?: (() => number) | undefined;
  onExchange?: ((line: RecordedExchange) => void) | undefined;
  onRefused?: ((refusal: RecordingRefusal) => void) | undefined;
}

/** startRecording's options with every default applied and the base URL checked. */
export interface ResolvedRecordingOptions {
  baseUrl: URL;
  paths: Record<string, string> | undefined;
  output: { dir: string; redactor: Redactor; sync: boolean; maxBytes: number; maxRecordedBodyBytes: number };
  port: number;
  host: string | undefined;
  listener: RecordingListenerOptions | undefined;
  limits: { timeoutMs: number; maxResponseBytes: number };
  dispatcher: Dispatcher | undefined;
  now: () => number;
  onExchange: ((line: RecordedExchange) => void) | undefined;
  onRefused: ((refusal: RecordingRefusal) => void) | undefined;
}

/** The API root as a URL a request may be forwarded to; anything else is refused here, naming it. */
export function checkRecordBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LedgerhookError('ERR_USAGE', `the base URL "${text.slice(0, 200)}" is not a URL`, {
      details: { reason: 'invalid_base_url' },
    });
  }
  const why =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `must be http or https, not ${url.protocol}`
      : url.username || url.password
        ? 'must not carry credentials (the client sends its own Authorization header, which is forwarded and never recorded)'
        : url.search || url.hash
          ? 'must not carry a query or a fragment'
          : undefined;
  if (why) throw new LedgerhookError('ERR_USAGE', `the base URL ${why}`, { details: { reason: 'invalid_base_url' } });
  return url;
}

function definedPaths(paths: Readonly<Partial<Record<string, string>>>): Record<string, string> {
  return Object.fromEntries(Object.entries(paths).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Resolved once, before a port is bound or a file made. */
export function normalizeRecordingOptions(options: RecordingOptions): ResolvedRecordingOptions {
  const { output, limits = {} } = options;
  return {
    baseUrl: checkRecordBaseUrl(options.baseUrl),
    paths: options.paths && definedPaths(options.paths),
    output: {
      dir: output.dir,
      redactor: output.redactor,
      sync: output.sync === true,
      maxBytes: output.maxBytes ?? DEFAULT_MAX_RECORDING_BYTES,
      maxRecordedBodyBytes: output.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
    },
    port: options.port ?? 0,
    host: options.host,
    listener: options.listener,
    limits: {
      timeoutMs: limits.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      maxResponseBytes: limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
    dispatcher: options.dispatcher,
    now: options.now ?? Date.now,
    onExchange: options.onExchange,
    onRefused: options.onRefused,
  };
}
