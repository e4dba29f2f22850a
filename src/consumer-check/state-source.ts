import { usageError } from '../errors.js';
import type { Dispatcher } from 'undici';
import { splitCommand } from './split-command.js';
import { commandStateReader } from './state-command.js';
import { DEFAULT_MAX_STATE_BYTES, DEFAULT_STATE_TIMEOUT_MS } from '../defaults.js';
import type { StateReader } from './state-reader.js';
import { quoted } from './state-document.js';
import { isLoopbackHost, urlStateReader } from './state-url.js';

export interface StateSourceOptions {
  /** The environment a state command runs with. */
  env?: NodeJS.ProcessEnv | undefined;
  cwd?: string | undefined;
  timeoutMs?: number | undefined;
  maxBytes?: number | undefined;
  dispatcher?: Dispatcher | undefined;
}

export interface StateSource {
  kind: 'command' | 'url';
  /** For people: the URL, or the command as given. */
  label: string;
  read: StateReader;
}

/**
 * `--state` as typed: an http(s) URL on this machine (GET, JSON), else a command run without a shell
 * (split by splitCommand) whose stdout is the JSON.
 */
export function stateSource(text: string, options: StateSourceOptions = {}): StateSource {
  const value = text.trim();
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_STATE_BYTES;
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usageError(`the state URL ${quoted(value)} is not a URL`, 'invalid_state_source');
    }
    if (!isLoopbackHost(url.hostname))
      throw usageError(
        `the state URL must be on this machine (localhost, 127.0.0.1 or [::1]), not ${quoted(url.hostname)}`,
        'invalid_state_source',
      );
    return {
      kind: 'url',
      label: url.href,
      read: urlStateReader(url, { timeoutMs, maxBytes, dispatcher: options.dispatcher }),
    };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw usageError('the state is read from an http(s) URL or a command', 'invalid_state_source');
  const argv = splitCommand(value);
  return {
    kind: 'command',
    label: value,
    read: commandStateReader(argv, { env: options.env, cwd: options.cwd, timeoutMs, maxBytes, text: value }),
  };
}
