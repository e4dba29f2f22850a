import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './processes.js';

/** A process run to its end: its wall time, its peak RSS and CPU time as it reports them on exit, its stdout. */
export function measuredProcess(
  dir: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
): { seconds: number; rssMb: number; cpuMs: number; stdout: string } {
  const hook = join(dir, 'report-usage.cjs');
  writeFileSync(
    hook,
    "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('maxrss ' + u.maxRSS + ' cpu ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });",
  );
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--require', hook, ...argv], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 22,
  });
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed: ${child.stderr}`);
  const usage = /maxrss (\d+) cpu (\d+)/.exec(child.stderr);
  return { seconds, rssMb: Number(usage?.[1]) / 1024, cpuMs: Number(usage?.[2]) / 1000, stdout: child.stdout };
}

/** A `ledgerhook sync` process: its wall time, peak RSS and CPU time, and its --json summary. */
export function syncProcess(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { seconds: number; rssMb: number; cpuMs: number; summary: { total: number; mode: string } } {
  const run = measuredProcess(dir, [BIN, 'sync', ...args, '--json'], env);
  return { ...run, summary: JSON.parse(run.stdout) as { total: number; mode: string } };
}
