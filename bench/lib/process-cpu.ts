import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux; NaN elsewhere). On a
 * machine shared with other work, a server's CPU time per request is a steadier figure than its
 * requests per second: it does not count the time the server waited for a core.
 */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (in parentheses, which may hold spaces): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}
