import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * Opens a file the store keeps beside a data file (a kept read's staging file and record, a change
 * log) never through a symlink (O_NOFOLLOW) and only as a regular file. Its name is input like any
 * other: a link planted there must not lead a read or a write elsewhere (a link to /dev/zero is an
 * endless read, one to a file outside a write there). O_NONBLOCK: a pipe planted there does not hold
 * the open until someone writes to it. Fails with code ELOOP (a symlink) or ENOTREG (anything else
 * that is not a regular file).
 */
export async function openRegular(path: string, flags: number, mode?: number): Promise<FileHandle> {
  const handle = await open(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  try {
    if (!(await handle.stat()).isFile())
      throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREG', path });
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Whether openRegular failed because the name holds something other than a regular file. */
export const notRegular = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code;
  // ENXIO: a pipe opened for writing with no reader.
  return code === 'ELOOP' || code === 'ENOTREG' || code === 'ENXIO';
};
