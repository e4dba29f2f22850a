/**
 * A running command's output, followed as it comes: stdout in lines, stderr whole, and waits for a
 * line or a stderr match that end when the command does (ended() says why) or after a timeout.
 * startCli (a spawned process) and startInProcess (this process) feed it.
 */
export interface OutputFollower {
  lines: string[];
  stderr(): string;
  stdout(text: string): void;
  stderrText(text: string): void;
  /** Re-checks the waits: after output, and when the command ended. */
  wake(): void;
  /** Resolves with the first stdout line (parsed as JSON when it is) that satisfies the predicate. */
  waitFor<T = any>(predicate: (value: any) => boolean, timeoutMs?: number): Promise<T>;
  /** Resolves once stderr matches; rejects when the command ended first or on timeout. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** `ended` answers undefined while the command runs, else the error to reject a wait with. */
export function followOutput(ended: (what: string, output: string) => Error | undefined): OutputFollower {
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const output = () => `stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`;
  const parse = (line: string) => {
    try {
      return JSON.parse(line);
    } catch {
      return line;
    }
  };
  const until = <T>(timeoutMs: number, what: string, found: () => { value: T } | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const hit = found();
        const error = hit ? undefined : ended(what, output());
        if (hit || error) cleanup();
        if (hit) resolve(hit.value);
        else if (error) reject(error);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; ${output()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    lines,
    stderr: () => stderr,
    stdout(text) {
      partial += text;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      wake();
    },
    stderrText(text) {
      stderr += text;
      wake();
    },
    wake,
    waitFor(predicate, timeoutMs = 15_000) {
      let index = 0;
      return until(timeoutMs, 'a line', () => {
        for (; index < lines.length; index += 1) {
          const value = parse(lines[index] ?? '');
          if (predicate(value)) return { value };
        }
        return undefined;
      });
    },
    waitForStderr(pattern, timeoutMs = 15_000) {
      return until(timeoutMs, `stderr to match ${pattern}`, () => {
        const match = pattern.exec(stderr);
        return match ? { value: match } : undefined;
      });
    },
  };
}
