import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tempFileOwner } from './temp-name.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A sync killed with SIGKILL leaves its temporary file behind; the data file and
 * state are untouched, so they are only litter. Removes those of dead processes for this file.
 */
export async function removeStaleTempFiles(dir: string, fileName: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const pid = tempFileOwner(name, fileName);
      if (pid !== undefined && pid !== process.pid && !alive(pid)) await rm(join(dir, name), { force: true });
    }),
  );
}
