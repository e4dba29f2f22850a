import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tempFileOwner } from './temp-name.js';

/** Whether a process of that pid runs (one of another user counts: it cannot be signalled, but it is there). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !zombie(pid);
}

/**
 * A process killed a moment ago can still be signalled until its parent reaps it (a zombie, state Z
 * on Linux): it runs no more, so its files are as good as a dead process's.
 */
function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * A sync killed with SIGKILL leaves its temporary file behind; the data file and
 * state are untouched, so they are only litter. Removes those of dead processes for this file
 * (of `suffixes`: temporary files only, unless the caller knows kept reads of that name are litter too).
 */
export async function removeStaleTempFiles(dir: string, fileName: string, suffixes?: readonly string[]): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const pid = suffixes
        ? suffixes.map((suffix) => tempFileOwner(name, fileName, suffix)).find((owner) => owner !== undefined)
        : tempFileOwner(name, fileName);
      if (pid !== undefined && pid !== process.pid && !alive(pid)) await rm(join(dir, name), { force: true });
    }),
  );
}
