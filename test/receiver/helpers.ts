import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RECEIVER_CASE_TABLE } from '../../src/delivery/receiver-case-table.js';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { ENTITY_UPDATE, independentDelivery, SECRET } from '../../packages/webhooks/test/independent-jwt.js';

export { ENTITY_UPDATE, independentDelivery, SECRET };
import { runnable } from '../helpers/runnable.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningApp {
  url: string;
  output(): string;
  /** Resolves once the app's output matches (output reaches us asynchronously, after the answer). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs a snippet exactly as written (its compiled copy under npm test, else `node --import tsx file`:
 * test/helpers/runnable.ts) on port 0 and waits for its "listening on URL" line.
 */
export function startApp(file: string, env: Record<string, string> = {}, timeoutMs = 20_000): Promise<RunningApp> {
  const child = spawn(process.execPath, runnable(file), {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const wakers = new Set<() => void>();
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not start listening:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: string) => {
      output += chunk;
      for (const wake of wakers) wake();
      const match = /listening on (\S+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        output: () => output,
        waitForOutput: (pattern, waitMs = 10_000) =>
          new Promise<void>((done, fail) => {
            const check = () => {
              if (!pattern.test(output)) return;
              clearTimeout(deadline);
              wakers.delete(check);
              done();
            };
            const deadline = setTimeout(() => {
              wakers.delete(check);
              fail(new Error(`no output matching ${pattern}:\n${output}`));
            }, waitMs);
            wakers.add(check);
            check();
          }),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
          running.delete(child);
        },
      });
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited ${code} before listening:\n${output}`));
    });
  });
}

/** Runs the built `ledgerhook check-receiver` against a URL and asserts that every case of the battery holds. */
/**
 * `ledgerhook check-receiver --json` against a receiver: the built bin, or with `inProcess` the same
 * definitions and command module run in this process (saves a CLI start per receiver).
 */
export async function assertCheckReceiverPasses(url: string, options: { inProcess?: boolean } = {}): Promise<void> {
  const args = ['check-receiver', '--to', url, '--secret', SECRET, '--json'];
  const result = options.inProcess ? await runInProcess(args) : await runCli(args, { timeoutMs: 60_000 });
  assert.ok(result.stdout, `no report; stderr: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as { passed: boolean; cases: Array<{ id: string; verdict: string }> };
  const failing = report.cases.filter((c) => c.verdict !== 'pass');
  assert.deepEqual(failing, [], `cases that do not hold: ${JSON.stringify(failing)}`);
  assert.equal(report.passed, true);
  assert.equal(report.cases.length, RECEIVER_CASE_TABLE.length);
  assert.equal(result.code, 0, result.stderr);
}

export async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
  const response = await fetch(url, { method: 'POST', body: delivery.body, headers: delivery.headers });
  return { status: response.status, body: await response.text() };
}
