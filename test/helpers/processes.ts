/** Whether processes a test started are still running, read from the kernel (Linux /proc). */
import { readFileSync } from 'node:fs';

/** Running: it exists and is not a zombie (an ended process its new parent has not reaped yet). */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S ...": the state follows the last ")" (comm may hold one).
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** Resolves once none of `pids` runs; rejects naming the ones still running at the deadline. */
export async function untilEnded(pids: readonly number[], timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = pids.filter(isRunning);
    if (running.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still running after ${timeoutMs} ms: ${running.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
