import { LedgerhookError } from '../errors.js';
import { quoted } from './state-document.js';

/**
 * The edge that reads what the consumer's store holds: the parsed JSON document (checked later by
 * readConsumerState). A command and a loopback URL are the two the CLI offers; tests inject their own.
 */
export type StateReader = (signal?: AbortSignal) => Promise<unknown>;

export function tooLarge(label: string, maxBytes: number): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', `${label} printed more than ${maxBytes} bytes; not read further`, {
    details: { reason: 'consumer_state_too_large', maxBytes },
  });
}

/** JSON.parse, with a message that says whose output was not JSON; never anything but parsing. */
export function parseStateText(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const start = text.trim() === '' ? 'nothing' : `${text.length} bytes starting ${quoted(text, 40)}`;
    throw new LedgerhookError('ERR_USAGE', `${label} did not print JSON (${start})`, {
      cause: error,
      details: { reason: 'consumer_state_invalid' },
    });
  }
}
