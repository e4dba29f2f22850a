import { open } from 'node:fs/promises';

/**
 * Whether the bytes between the lines are as the writer lays them out ("[\n", then ",\n" after every
 * item but the last, no "\r" anywhere: JSON.stringify never writes one raw): the line digest above
 * sees lines as read, without their separators, and the continued file's CRC-32 is taken over the
 * raw bytes, so a separator damaged in the staging file would otherwise be vouched for (review).
 */
export async function layoutDamage(path: string, bytes: number): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(Math.max(bytes, 2), 4 * 1024 * 1024));
    let previous = -1;
    for (let at = 0; at < bytes; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, bytes - at), at);
      if (bytesRead === 0) return 'its staging file is shorter than recorded';
      const chunk = buffer.subarray(0, bytesRead);
      if (at === 0 && (chunk[0] !== 0x5b || (bytes > 1 && chunk[1] !== 0x0a)))
        return 'its staging file does not start as a data file';
      if (chunk.includes(0x0d)) return 'its staging file has a carriage return between its items';
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, newline + 1)) {
        const before = newline > 0 ? chunk[newline - 1] : previous;
        if (at + newline > 1 && before !== 0x2c) return 'its staging file has an item line not followed by ","';
      }
      previous = chunk[bytesRead - 1] ?? -1;
      at += bytesRead;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
