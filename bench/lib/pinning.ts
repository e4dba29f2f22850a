import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Profile and measure a server under load with the load generator on the other core, so
 * that the two do not take turns on one. On Linux with taskset and 2+ cores, `server(argv)` runs the
 * server on core 0 and this process (the generator) moves to core 1; elsewhere nothing is pinned.
 */
export function corePinning(): { server: (argv: string[]) => string[]; note: string } {
  const usable =
    process.platform === 'linux' &&
    availableParallelism() >= 2 &&
    spawnSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' }).status === 0;
  if (!usable) return { server: (argv) => argv, note: 'not pinned (no taskset or one core)' };
  return {
    server: (argv) => ['taskset', '-c', '0', ...argv],
    note: 'server pinned to core 0, load generator to core 1 (taskset)',
  };
}
