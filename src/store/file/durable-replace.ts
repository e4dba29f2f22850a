import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DATA_FILE_MODE, type FileDigest } from './data-file.js';
import { FileChecksum } from './file-checksum.js';
import { tempFileName } from './temp-name.js';
import { writeFailed } from './write-failed.js';

/*
 * Putting a file in place so that a crash leaves either the old one or the new one whole: its data
 * fsynced, then renamed over the old name, then the directory entry fsynced.
 */

/** Waits for both, then throws the first one's error if either failed (neither is left running). */
export async function settleBoth(first: Promise<unknown>, second: Promise<unknown> | undefined): Promise<void> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
}

/** So that a rename survives a power cut, the directory entry is flushed too (not possible on every OS). */
export async function syncDirectory(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; the rename is still atomic there.
  }
}

/** Writes a whole JSON document atomically (endpoints known to answer a document). */
export async function writeDocumentAtomically(
  target: string,
  document: unknown,
  beforeRename?: (digest: FileDigest) => Promise<void>,
): Promise<FileDigest> {
  const temp = join(dirname(target), tempFileName(basename(target)));
  const bytes = Buffer.from(`${JSON.stringify(document, null, 2)}\n`);
  const checksum = new FileChecksum();
  checksum.add(bytes);
  const result: FileDigest = { items: 1, checksum: checksum.toString() };
  try {
    const handle = await open(temp, 'wx', DATA_FILE_MODE);
    try {
      await handle.write(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeRename?.(result);
    await rename(temp, target);
    await syncDirectory(dirname(target));
    return result;
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailed(target, error);
  }
}
