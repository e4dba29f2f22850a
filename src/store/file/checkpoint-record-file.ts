import { constants } from 'node:fs';
import { type FileHandle, rename, rm, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { openRegular } from './regular-file.js';

/**
 * The bytes of a checkpoint record file (full-read-checkpoint.ts): two slots, at 0 and at SLOT_BYTES,
 * each one line `<CRC-32, 8 hex> <sequence> <record JSON>\n`; the newest slot whose CRC matches is the
 * record. A run writes its first record whole (temporary file + rename) and every later one into the
 * older slot with one positioned write on a handle it keeps: a crash, even mid-write, leaves the
 * record before or the one after, and a page costs one write rather than a file created, written,
 * closed and renamed over the last (a cost a busy disk feels on every page). A record too long for a
 * slot (none is: a cursor is at most 4 KiB) is not written: the one before it stands, and a resumed
 * read goes on from there.
 */
export const SLOT_BYTES = 32 * 1024;

function slotBytes(sequence: number, json: string): Buffer {
  const body = `${sequence} ${json}`;
  return Buffer.from(`${crc32(body).toString(16).padStart(8, '0')} ${body}\n`);
}

function readSlot(bytes: Buffer, start: number): { sequence: number; json: string } | undefined {
  if (start >= bytes.length) return undefined;
  const end = bytes.indexOf(0x0a, start);
  // A line that reaches the other slot is no slot (the writer never writes one that long).
  if (end < 0 || end - start >= SLOT_BYTES || end - start < 10) return undefined;
  const crc = bytes.toString('latin1', start, start + 8);
  if (bytes[start + 8] !== 0x20 || !/^[0-9a-f]{8}$/.test(crc)) return undefined;
  // Over exactly the bytes written: a write torn mid-character is refused like any other.
  const body = bytes.subarray(start + 9, end);
  if (crc32(body).toString(16).padStart(8, '0') !== crc) return undefined;
  const match = /^(\d{1,15}) (.+)$/s.exec(body.toString('utf8'));
  if (!match?.[1] || !match[2]) return undefined;
  return { sequence: Number(match[1]), json: match[2] };
}

/** The record file's size at most: its two slots. */
export const RECORD_FILE_BYTES = 2 * SLOT_BYTES;

/** The record's JSON text as the file holds it: the newest whole slot. */
export function recordText(bytes: Buffer): string | undefined {
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

  /**
   * Writes `json` as the record; `temp` is a fresh temporary name beside it, for a whole write.
   * Returns false, writing nothing, for a record too long for a slot.
   */
  async write(json: string, temp: string): Promise<boolean> {
    // The first record (no handle yet) is written whole, into slot 0, as sequence 1; each later one
    // goes to the older slot (sequence 2 to slot 1, 3 to slot 0...), its sequence one past the last.
    const handle = this.#handle;
    const sequence = handle === undefined ? 1 : this.#sequence + 1;
    const bytes = slotBytes(sequence, json);
    if (bytes.length >= SLOT_BYTES) return false;
    this.#sequence = sequence;
    if (handle) {
      await handle.write(bytes, 0, bytes.length, sequence % 2 === 0 ? SLOT_BYTES : 0);
      return true;
    }
    try {
      await writeFile(temp, bytes, { mode: this.#mode, flag: 'wx' });
      await rename(temp, this.#path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    // Never through a symlink: one planted under the record's name after the rename is refused.
    this.#handle = await openRegular(this.#path, constants.O_RDWR);
    return true;
  }

  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}
