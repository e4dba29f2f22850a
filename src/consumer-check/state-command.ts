import { spawn } from 'node:child_process';
import { LedgerhookError } from '../errors.js';
import { parseStateText, type StateReader, tooLarge } from './state-reader.js';
import { quoted } from './state-document.js';

export interface CommandStateOptions {
  /** The environment the command runs with (the CLI passes its own). */
  env?: NodeJS.ProcessEnv | undefined;
  cwd?: string | undefined;
  timeoutMs: number;
  maxBytes: number;
  /** The command as the user typed it, for messages (argv joined loses its quotes). */
  text?: string | undefined;
}

/** What stderr keeps of a state command: the tail, where the error usually is. */
const STDERR_TAIL = 4096;

const failed = (message: string) =>
  new LedgerhookError('ERR_USAGE', message, { details: { reason: 'consumer_state_failed' } });

/**
 * Reads the state by running a command (argv, never a shell) and parsing what it prints. Its stdout is
 * bounded (past `maxBytes` the command is killed), its stderr only kept by its tail, and a command that
 * runs past `timeoutMs` is killed: a broken state command cannot hang or flood the check.
 */
export function commandStateReader(argv: readonly string[], options: CommandStateOptions): StateReader {
  const [file, ...args] = argv;
  const label = `the state command ${quoted(options.text ?? argv.join(' '))}`;
  return (signal) =>
    new Promise((resolve, reject) => {
      if (file === undefined) return reject(failed('the state command is empty'));
      if (signal?.aborted) return reject(new LedgerhookError('ERR_ABORTED', 'stopped'));
      const child = spawn(file, args, {
        env: options.env,
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      let failure: LedgerhookError | undefined;
      let settled = false;
      const stop = (error: LedgerhookError) => {
        failure ??= error;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(
        () => stop(failed(`${label} did not finish within ${Math.round(options.timeoutMs / 100) / 10} s`)),
        options.timeoutMs,
      );
      const onAbort = () => stop(new LedgerhookError('ERR_ABORTED', 'stopped'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (outcome: () => unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        try {
          resolve(outcome());
        } catch (error) {
          reject(error);
        }
      };
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) stop(tooLarge(label, options.maxBytes));
        else if (!failure) chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      child.on('error', (error: NodeJS.ErrnoException) =>
        finish(() => {
          throw (
            failure ??
            failed(
              error.code === 'ENOENT'
                ? `${label} cannot be started: there is no command ${quoted(file)} (it runs without a shell)`
                : `${label} cannot be started: ${quoted(error.message, 200)}`,
            )
          );
        }),
      );
      child.on('close', (code, killedBy) =>
        finish(() => {
          if (failure) throw failure;
          if (code !== 0) {
            const last = stderr.trim().split('\n').at(-1);
            const how = code === null ? `was killed by ${String(killedBy)}` : `exited with ${code}`;
            throw failed(`${label} ${how}${last ? `: ${quoted(last, 200)}` : ''}`);
          }
          return parseStateText(Buffer.concat(chunks).toString('utf8'), label);
        }),
      );
    });
}
