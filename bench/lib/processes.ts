import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/ledgerhook.js', import.meta.url));

/** Starts a child process and resolves with it and the first stdout line that matches. */
export function startProcess(
  argv: string[],
  match: (line: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; value: string }> {
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

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
