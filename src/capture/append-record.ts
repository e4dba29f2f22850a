import { open } from 'node:fs/promises';
import { LedgerhookError } from '../errors.js';
import type { AttemptRecord } from './attempt-record.js';
import type { CaptureRecord } from './capture-record.js';

/**
 * Appends records to a capture file that another process may be writing too (a running listen): one
 * write of whole lines, with O_APPEND, so that they land after whatever is there. A file whose
 * last line was torn (a listener killed mid-write) first gets the line break it lacks, so that the
 * torn fragment stays one bad line instead of swallowing this record. Created 0600 when missing.
 */
export async function appendCaptureRecord(
  path: string,
  record: CaptureRecord | AttemptRecord | ReadonlyArray<CaptureRecord | AttemptRecord>,
): Promise<void> {
  const records = Array.isArray(record) ? record : [record];
  if (records.length === 0) return;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'a+', 0o600);
    const { size } = await handle.stat();
    let lead = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) lead = '\n';
    }
    await handle.write(`${lead}${records.map((entry) => `${JSON.stringify(entry)}\n`).join('')}`);
    await handle.sync();
  } catch (error) {
    throw new LedgerhookError(
      'ERR_IO',
      `cannot append to capture file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  } finally {
    await handle?.close();
  }
}
