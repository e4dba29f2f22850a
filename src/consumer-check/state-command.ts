import { type ChildProcess, spawn } from 'node:child_process';
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

/** A process group of its own, where there are process groups: everything the command starts can be ended. */
const OWN_GROUP = process.platform !== 'win32';

/** Ends the command's whole process group (the command and whatever it left running), or the command alone. */
function endGroup(child: ChildProcess): void {
  try {
    if (OWN_GROUP && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch (error) {
    // ESRCH: nothing is left in the group.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Reads the state by running a command (argv, never a shell) and parsing what it prints. Its stdout is
 * bounded (past `maxBytes` the command is killed), its stderr only kept by its tail, and a command that
 * runs past `timeoutMs` is killed: a broken state command cannot hang or flood the check. The command
 * runs in a process group of its own: at the bound, on a stop, and once the command itself has exited,
 * the whole group is ended, so that a process it left behind (`sleep 40 &`) holding its output open
 * cannot hold the check.
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
        detached: OWN_GROUP,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      let failure: LedgerhookError | undefined;
      let settled = false;
      const stop = (error: LedgerhookError) => {
        failure ??= error;
        endGroup(child);
        // A process that left the group (setsid) may still hold the pipes: what it would print is not read.
        child.stdout.destroy();
        child.stderr.destroy();
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
      // The command is done: what it left running is not part of its answer (its output so far is kept).
      child.on('exit', () => endGroup(child));
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
