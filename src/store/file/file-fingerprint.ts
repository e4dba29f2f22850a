import { stat } from 'node:fs/promises';

/**
 * A data file's fingerprint: the device and inode it is, its size, and its modification
 * and status-change times in nanoseconds, as one string kept with the state. An incremental run
 * with nothing to merge compares it (one stat) instead of reading and checksumming the whole file.
 *
 * What it catches: any write through the file system, in place or by a new file renamed over it,
 * even one that keeps the size and sets the modification time back (`touch -d`), since the
 * status-change time (ctime) moves with every write, chmod or rename and no call sets it back.
 * What it cannot: bytes changed under the file system (a failing disk, a raw device write), a clock
 * set back so that a same-size edit lands on the recorded ctime, or a same-size edit made within
 * the file system's timestamp tick of the commit (ext4 and tmpfs on kernels before 6.13 stamp from a
 * clock ticking every 1-10 ms; FAT and HFS+ are coarser). The full check (sync --verify, and every
 * run that has changes to merge) catches those.
 */
export async function fingerprintOf(path: string): Promise<string | undefined> {
  try {
    const found = await stat(path, { bigint: true });
    return `${found.dev}:${found.ino}:${found.size}:${found.mtimeNs}:${found.ctimeNs}`;
  } catch {
    return undefined;
  }
}
