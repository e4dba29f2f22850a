import { CommanderError } from '@commander-js/extra-typings';
import { isLedgerhookError } from '../errors.js';
import { missingPeerError } from '../util/optional-peer.js';
import { withAdvice } from './error-advice.js';
import { EXIT } from './exit-codes.js';
import { type JsonError, jsonError } from './json-output.js';

/**
 * What a thrown error means to the CLI, decided in one place for the entry point and the in-process
 * test runner: the exit code, the one stderr line (uncoloured; commander prints its own), and the
 * `--json` error member.
 */
export interface CliOutcome {
  exitCode: number;
  /** `error: …` (a library error) or `internal error: …` (a bug); absent when commander said it. */
  line?: { label: 'error:' | 'internal error:'; text: string } | undefined;
  json?: JsonError | undefined;
  /** For --debug: the stack worth printing. */
  stack?: string | undefined;
}

const said = new WeakSet<object>();

/**
 * Marks an error whose why the command has already printed (verify's verdict and its failed check):
 * it still sets the exit code and the `--json` error, but adds no `error:` line under the verdict.
 */
export function alreadySaid<E extends object>(error: E): E {
  said.add(error);
  return error;
}

const QUIET_COMMANDER = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

export function outcomeOf(thrown: unknown, debug: boolean): CliOutcome {
  // A missing optional peer (pg, bullmq, ioredis) is a set-up step, not a bug: say which package to install.
  const error = missingPeerError(thrown) ?? thrown;
  if (error instanceof CommanderError) {
    if (QUIET_COMMANDER.has(error.code)) return { exitCode: EXIT.ok };
    const reason = error.code.replace(/^commander\./, '').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    const message = error.message.replace(/^error: /, '');
    return { exitCode: EXIT.usage, json: { code: 'ERR_USAGE', reason, message, exitCode: EXIT.usage } };
  }
  if (isLedgerhookError(error)) {
    const json = jsonError(error);
    const line = said.has(error) ? undefined : ({ label: 'error:', text: withAdvice(error) } as const);
    return { exitCode: json.exitCode, line, json, stack: error.stack };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    exitCode: EXIT.internal,
    line: {
      label: 'internal error:',
      text: `${message}. This is a bug in ledgerhook; please report it${debug ? '' : ' (run again with --debug for the stack)'}.`,
    },
    json: { code: 'ERR_INTERNAL', reason: 'internal_error', message, exitCode: EXIT.internal },
    stack: error instanceof Error ? error.stack : undefined,
  };
}
