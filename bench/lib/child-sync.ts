import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './processes.js';

/** A `ledgerhook sync` process: its wall time, and its peak RSS as it reports it on exit. */
export function syncProcess(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { seconds: number; rssMb: number; summary: { total: number; mode: string } } {
  const hook = join(dir, 'report-rss.cjs');
  writeFileSync(
    hook,
    "process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'));",
  );
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--require', hook, BIN, 'sync', ...args, '--json'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 22,
  });
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`ledgerhook sync ${args.join(' ')} failed: ${child.stderr}`);
  const rssMb = Number(/maxrss (\d+)/.exec(child.stderr)?.[1]) / 1024;
  return { seconds, rssMb, summary: JSON.parse(child.stdout) as { total: number; mode: string } };
}
