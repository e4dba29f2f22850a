import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FileChecksum } from './file-checksum.js';
import { notRegular, openRegular } from './regular-file.js';

/** The bytes of a staging file a checkpoint kept, as read back: how many, their checksum, the items they hold. */
export interface KeptBytes {
  bytes: number;
  items: number;
  checksum: FileChecksum;
}

const CHUNK = 4 * 1024 * 1024;

/**
 * Reads back the first `bytes` of a staging file: their CRC-32 (file-checksum.ts, the checksum its
 * record keeps, taken over every byte the writer wrote, separators included) and the items they
 * hold (the writer puts a newline after "[" and between items, and none after the last item), or
 * why they cannot be read (gone, or not a regular file: regular-file.ts).
 */
export async function readKept(path: string, bytes: number): Promise<KeptBytes | string> {
  let handle: FileHandle;
  try {
    handle = await openRegular(path, constants.O_RDONLY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'its staging file is gone';
    return `its staging file cannot be read (${notRegular(error) ? 'not a regular file' : (code ?? 'error')})`;
  }
  try {
    const size = (await handle.stat()).size;
    if (size < bytes) return `its staging file is shorter than recorded (${size} of ${bytes} bytes)`;
    const checksum = new FileChecksum();
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(bytes, CHUNK)));
    let newlines = 0;
    while (checksum.bytes < bytes) {
      const { bytesRead } = await handle.read(
        buffer,
        0,
        Math.min(buffer.length, bytes - checksum.bytes),
        checksum.bytes,
      );
      if (bytesRead === 0) return 'its staging file is shorter than recorded';
      const chunk = buffer.subarray(0, bytesRead);
      checksum.add(chunk);
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) newlines += 1;
    }
    return { bytes, items: bytes > 2 ? newlines : 0, checksum };
  } finally {
    await handle.close();
  }
}
