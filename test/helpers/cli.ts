import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/ledgerhook.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'ledgerhook-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs the built CLI the way a user would: a real process, a private settings directory, no colour. */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string | Buffer; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', LEDGERHOOK_WEBHOOK_SECRET: undefined, LEDGERHOOK_ENV: undefined, ...options.env };
    env.LEDGERHOOK_CONFIG_DIR ??= tempDir('ledgerhook-config-');
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, cwd: options.cwd ?? process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Asserts the error contract: exactly one line on stderr, never a stack trace. */
export function assertOneLineError(result: CliResult): void {
  const lines = result.stderr.trimEnd().split('\n');
  if (lines.length !== 1 || /\n\s+at /.test(result.stderr) || result.stderr.trim() === '') {
    throw new Error(`expected one line on stderr, got:\n${result.stderr}`);
  }
}
