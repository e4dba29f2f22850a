import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { followOutput } from './output-follower.js';

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
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string | Buffer; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      NO_COLOR: '1',
      LEDGERHOOK_WEBHOOK_SECRET: undefined,
      LEDGERHOOK_ENV: undefined,
      ...options.env,
    };
    env.LEDGERHOOK_CONFIG_DIR ??= tempDir('ledgerhook-config-');
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [BIN, ...args], {
      env: env as NodeJS.ProcessEnv,
      cwd: options.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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

/**
 * runCli with the process's peak resident memory (VmHWM, read just before it exits, through a
 * preloaded hook) and its wall time: the bounds a large or hostile input must keep.
 */
export async function runCliMeasured(
  args: string[],
  options: Parameters<typeof runCli>[1] = {},
): Promise<CliResult & { peakMb: number; ms: number }> {
  const hook = join(tempDir(), 'peak.cjs');
  writeFileSync(
    hook,
    "process.on('exit',()=>{const m=/VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'));process.stderr.write('\\nPEAK_KB '+(m?m[1]:0)+'\\n')})",
  );
  const started = performance.now();
  const result = await runCli(args, { ...options, env: { NODE_OPTIONS: `--require ${hook}`, ...options.env } });
  const ms = performance.now() - started;
  const peakKb = Number(/PEAK_KB (\d+)/.exec(result.stderr)?.[1] ?? 0);
  return { ...result, stderr: result.stderr.replace(/\nPEAK_KB \d+\n/, ''), peakMb: peakKb / 1024, ms };
}

/** Asserts the error contract: exactly one line on stderr, never a stack trace. */
export function assertOneLineError(result: CliResult): void {
  // A credential given as a flag is warned about before the command runs (secret-flag-warnings.ts):
  // that line is not part of the error.
  // Progress lines ("/expenses: page 3, 300 items", "checking URL ...", "1/2 sent" once a run takes over
  // a second) go to stderr too, before it.
  const all = result.stderr.trimEnd().split('\n');
  const lines = all.filter(
    (line) =>
      !/^warning: --(secret|token) puts the value/.test(line) &&
      !/^(\/\S*: |checking \S+ \(|sending \d+ × |probing \S+: request \d+ |\d+\/\d+ sent$)/.test(line),
  );
  if (lines.length !== 1 || lines[0] !== all.at(-1) || /\n\s+at /.test(result.stderr) || result.stderr.trim() === '') {
    throw new Error(`expected one line on stderr, got:\n${result.stderr}`);
  }
}

export interface RunningCli {
  child: import('node:child_process').ChildProcessWithoutNullStreams;
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (parsed as JSON when it is) that satisfies the predicate. */
  waitFor<T = any>(predicate: (value: any) => boolean, timeoutMs?: number): Promise<T>;
  /** Resolves once stderr (progress, warnings) matches; rejects on exit or timeout. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends a signal and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<import('node:child_process').ChildProcess>();
// A failed test must not leave servers behind.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a long-running command (listen, mock) as a user would, and follows its stdout line by line. */
export function startCli(args: string[], options: { env?: Record<string, string | undefined> } = {}): RunningCli {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    LEDGERHOOK_WEBHOOK_SECRET: undefined,
    ...options.env,
  };
  env.LEDGERHOOK_CONFIG_DIR ??= tempDir('ledgerhook-config-');
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, ...args], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  const follower = followOutput((what, output) =>
    child.exitCode !== null || child.signalCode !== null
      ? new Error(`process exited before ${what}; ${output}`)
      : undefined,
  );
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => follower.stdout(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => follower.stderrText(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      follower.wake();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    lines: follower.lines,
    stderr: follower.stderr,
    waitFor: follower.waitFor,
    waitForStderr: follower.waitForStderr,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
