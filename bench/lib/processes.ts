import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/ledgerhook.js', import.meta.url));

/**
 * Starts a child process and resolves with it and the first stdout line that matches. With
 * `stdoutFile`, the child writes its stdout to that file (read back until the line shows) instead of
 * a pipe into this process: a server that prints a line per request (listen) then costs this
 * process, the load generator, nothing to read, as a terminal would not.
 */
export function startProcess(
  argv: string[],
  match: (line: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  stdoutFile?: string,
): Promise<{ child: ChildProcess; value: string }> {
  if (stdoutFile !== undefined) return startWritingTo(stdoutFile, argv, match, env);
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffer = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (const line of buffer.split('\n')) {
        const value = match(line);
        if (value !== undefined) {
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve({ child, value });
          return;
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code} before it was ready`)));
  });
}

function startWritingTo(
  file: string,
  argv: string[],
  match: (line: string) => string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; value: string }> {
  const fd = openSync(file, 'w');
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => {
      clearInterval(poll);
      reject(new Error(`${argv.join(' ')} exited ${code} before it was ready`));
    };
    const poll = setInterval(() => {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const value = match(line);
        if (value === undefined) continue;
        clearInterval(poll);
        child.off('exit', exited);
        resolve({ child, value });
        return;
      }
    }, 20);
    child.on('exit', exited);
  });
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
