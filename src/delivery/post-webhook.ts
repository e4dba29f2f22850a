import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { loadUndici } from '../http/load-undici.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../defaults.js';
import { networkError } from '../http/network-error.js';

export interface PostWebhookOptions {
  url: URL;
  body: Uint8Array | string;
  /** An array sends one header line per value, in order (a duplicated header replayed as captured). */
  headers: Record<string, string | string[]>;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** Clock for latency, in milliseconds (performance.now by default). */
  now?: (() => number) | undefined;
  /** How much of the answer to keep (default 2 KiB): past it the rest is never read. */
  maxBodyBytes?: number | undefined;
}

export interface DeliveryResponse {
  url: string;
  status: number;
  latencyMs: number;
  /** The first bytes of the answer, as text, for people to read. */
  bodyExcerpt: string;
  bodyTruncated: boolean;
  /** The kept bytes of the answer, as they came (a proxy relays these). */
  bodyBytes: Buffer;
  /** Whether bodyBytes is the whole answer (it fitted in maxBodyBytes). */
  bodyComplete: boolean;
  contentType?: string | undefined;
  /** Where a 3xx points to: deliveries are never redirected automatically. */
  location?: string | undefined;
}

const EXCERPT_BYTES = 2048;

/**
 * POSTs one delivery and reads at most a small excerpt of the answer; a huge answer is cut off
 * instead of being buffered. Network failures become ERR_NETWORK with a plain sentence.
 */
export async function postWebhook(options: PostWebhookOptions): Promise<DeliveryResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  const { request } = await loadUndici(); // before the clock starts: the import is not the request's time
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const started = now();
  try {
    const init: NonNullable<Parameters<typeof request>[1]> = {
      method: 'POST',
      headers: options.headers,
      body: options.body,
      signal,
    };
    // undici's options are not declared `| undefined`: set the dispatcher only when there is one.
    if (options.dispatcher) init.dispatcher = options.dispatcher;
    const response = await request(options.url, init);
    const latencyMs = now() - started;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const keep = options.maxBodyBytes ?? EXCERPT_BYTES;
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > keep) {
        truncated = true;
        break; // leaving the loop destroys the body: the rest is never read
      }
    }
    const bodyBytes = Buffer.concat(chunks).subarray(0, keep);
    const excerpt = bodyBytes.subarray(0, EXCERPT_BYTES).toString('utf8');
    const location = response.headers.location;
    const contentType = response.headers['content-type'];
    return {
      url: options.url.href,
      status: response.statusCode,
      latencyMs,
      bodyExcerpt: excerpt,
      bodyTruncated: truncated || bodyBytes.length > EXCERPT_BYTES,
      bodyBytes,
      bodyComplete: !truncated,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      location: typeof location === 'string' ? location : undefined,
    };
  } catch (error) {
    // Stopped by the caller (Ctrl-C): an interruption, whatever reason the signal carries, never a network failure.
    if (options.signal?.aborted)
      throw new LedgerhookError('ERR_ABORTED', `POST ${options.url.href} was interrupted`, { cause: error });
    if (timeout.aborted)
      throw networkError(Object.assign(new Error('timeout'), { name: 'TimeoutError' }), 'POST', options.url, timeoutMs);
    throw networkError(error, 'POST', options.url, timeoutMs);
  }
}
