import { type FileHandle, open, rename, rm, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/**
 * The bytes of a checkpoint record file (full-read-checkpoint.ts): two slots, at 0 and at SLOT_BYTES,
 * each one line `<CRC-32, 8 hex> <sequence> <record JSON>\n`; the newest slot whose CRC matches is the
 * record. A run writes its first record whole (temporary file + rename) and every later one into the
 * older slot with one positioned write on a handle it keeps: a crash, even mid-write, leaves the
 * record before or the one after, as the rename per page did, for one write instead of a file
 * created, written, closed and renamed over the last (issue 23: that cost a busy disk up to ~12% of
 * a full read). A file that starts with `{` is a whole-file record of an earlier version.
 */
export const SLOT_BYTES = 32 * 1024;

function slotBytes(sequence: number, json: string): Buffer {
  const body = `${sequence} ${json}`;
  return Buffer.from(`${crc32(body).toString(16).padStart(8, '0')} ${body}\n`);
}

function readSlot(bytes: Buffer, start: number): { sequence: number; json: string } | undefined {
  if (start >= bytes.length) return undefined;
  const end = bytes.indexOf(0x0a, start);
  if (end < 0 || end - start > SLOT_BYTES) return undefined;
  const line = bytes.toString('utf8', start, end);
  const match = /^([0-9a-f]{8}) (\d{1,15}) (.*)$/s.exec(line);
  if (!match?.[3] || !match[2]) return undefined;
  const body = `${match[2]} ${match[3]}`;
  if (crc32(body).toString(16).padStart(8, '0') !== match[1]) return undefined;
  return { sequence: Number(match[2]), json: match[3] };
}

/** The record's JSON text as the file holds it (the newest whole slot, or an earlier version's whole file). */
export function recordText(bytes: Buffer): string | undefined {
  if (bytes[0] === 0x7b) return bytes.toString('utf8'); // '{': written whole by an earlier version
  const slots = [readSlot(bytes, 0), readSlot(bytes, SLOT_BYTES)].filter((slot) => slot !== undefined);
  slots.sort((a, b) => b.sequence - a.sequence);
  return slots[0]?.json;
}

/** One run's writes of its record file: whole the first time, then into the older slot. */
export class RecordFileWriter {
  readonly #path: string;
  readonly #mode: number;
  #handle: FileHandle | undefined;
  #sequence = 0;

  constructor(path: string, mode: number) {
    this.#path = path;
    this.#mode = mode;
  }

  /** Writes `json` as the record; `temp` is a fresh temporary name beside it, for a whole write. */
  async write(json: string, temp: string): Promise<void> {
    this.#sequence += 1;
    const bytes = slotBytes(this.#sequence, json);
    // A record too long for a slot (no real one is: a cursor is at most 4 KiB) is written whole.
    const whole = bytes.length > SLOT_BYTES ? Buffer.from(`${json}\n`) : undefined;
    if (this.#handle === undefined || whole !== undefined) {
      await this.close();
      try {
        await writeFile(temp, whole ?? bytes, { mode: this.#mode, flag: 'wx' });
        await rename(temp, this.#path);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      if (whole === undefined) this.#handle = await open(this.#path, 'r+');
      this.#sequence = 1; // slot 0 holds it; the next goes to the other
      return;
    }
    await this.#handle.write(bytes, 0, bytes.length, this.#sequence % 2 === 0 ? SLOT_BYTES : 0);
  }

  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}
