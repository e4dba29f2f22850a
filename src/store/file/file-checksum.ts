import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/**
 * The checksum a data file's state keeps (issue 23): CRC-32 over the file's bytes as ledgerhook
 * lays them out ("[\n", the item lines joined by ",\n", "\n]\n"), with their length, written
 * `crc32:<8 hex>:<bytes>`. A merge checks the old file with it and takes the new file's as it
 * writes, each in one native call per chunk of a few MB.
 *
 * It replaces SHA-256 over the item lines (`sha256:<32 hex>`, still read: a state written before
 * is checked with it, see file-store-merge-lines.ts) because it is what damage detection needs at a
 * third of the cost: CRC-32 finds every error burst of up to 32 bits (any flipped byte) with
 * certainty and other damage but for 1 in 2^32, the length and item count beside it find every cut
 * or added line, and it is what ext4, btrfs, gzip and PNG trust for the same job. It is no seal
 * against someone who means to forge a file, and was never one: whoever can write the data file can
 * write what readers read; the check keeps a sync from building on a file it did not write.
 */
export class FileChecksum {
  #crc = 0;
  #bytes = 0;

  /** Adds `bytes`, the next ones of the file, to the running checksum. */
  add(bytes: Uint8Array): void {
    this.#crc = crc32(bytes, this.#crc);
    this.#bytes += bytes.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  toString(): string {
    return `crc32:${(this.#crc >>> 0).toString(16).padStart(8, '0')}:${this.#bytes}`;
  }
}

/** Whether a stored checksum is one of these (anything else, SHA-256 of lines, is the earlier kind). */
export const isFileChecksum = (checksum: string): boolean => checksum.startsWith('crc32:');

/** The checksum of a file's first `bytes` bytes, read in chunks (a kept staging file, when a full read resumes). */
export async function checksumOf(path: string, bytes: number): Promise<FileChecksum> {
  const checksum = new FileChecksum();
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(bytes, 4 * 1024 * 1024));
    while (checksum.bytes < bytes) {
      const want = Math.min(buffer.length, bytes - checksum.bytes);
      const { bytesRead } = await handle.read(buffer, 0, want, checksum.bytes);
      if (bytesRead === 0) throw new Error(`${path} is shorter than ${bytes} bytes`);
      checksum.add(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return checksum;
}
