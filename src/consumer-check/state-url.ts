import type { Dispatcher } from 'undici';
import { LedgerhookError } from '../errors.js';
import { loadUndici } from '../http/load-undici.js';
import { networkError } from '../http/network-error.js';
import { quoted } from './state-document.js';
import { parseStateText, type StateReader, tooLarge } from './state-reader.js';

export interface UrlStateOptions {
  timeoutMs: number;
  maxBytes: number;
  dispatcher?: Dispatcher | undefined;
}

/** The hosts a state URL may name: this machine only (the state is the user's data, read repeatedly). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Reads the state with one GET (never retried: the check polls again anyway, never redirected),
 * reading at most `maxBytes` of the answer.
 */
export function urlStateReader(url: URL, options: UrlStateOptions): StateReader {
  const label = `GET ${url.href}`;
  return async (signal) => {
    const { request } = await loadUndici();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let text = '';
    try {
      const init: NonNullable<Parameters<typeof request>[1]> = {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: both,
      };
      if (options.dispatcher) init.dispatcher = options.dispatcher;
      const response = await request(url, init);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > options.maxBytes) {
          response.body.destroy();
          throw tooLarge(label, options.maxBytes);
        }
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
      if (response.statusCode !== 200)
        // The answer's text is the consumer's: quoted, so that it cannot drive the terminal.
        throw new LedgerhookError(
          'ERR_HTTP_STATUS',
          `${label} answered ${response.statusCode}${text.trim() ? `: ${quoted(text.trim(), 200)}` : ''}`,
          { details: { reason: 'consumer_state_failed', status: response.statusCode } },
        );
    } catch (error) {
      if (error instanceof LedgerhookError) throw error;
      if (signal?.aborted) throw new LedgerhookError('ERR_ABORTED', 'stopped', { cause: error });
      const cause = timeout.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error;
      throw networkError(cause, 'GET', url, options.timeoutMs);
    }
    return parseStateText(text, label);
  };
}
