import { type FileHandle, open } from 'node:fs/promises';

/** A capture line longer than this is damaged (real lines are a few KiB, a kept body at most 1 MiB in Base64). */
export const MAX_CAPTURE_LINE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(CHUNK_BYTES);

/** Compared against a zero buffer (native), not byte by byte in JavaScript: a 1 GiB hole stays fast. */
function allZero(bytes: Buffer): boolean {
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
    const part = bytes.subarray(offset, offset + CHUNK_BYTES);
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

export type CaptureLine =
  | { kind: 'line'; number: number; text: string; last: boolean }
  /** A line over the cap, or a run of zero bytes (a hole in a sparse or preallocated file): skipped unread. */
  | { kind: 'skipped'; number: number; bytes: number; zeros: boolean };

/**
 * The lines of a capture file, streamed as bytes: memory stays at one chunk plus one line, however
 * large the file. An overlong line is never held whole: past the cap its bytes are only counted.
 * Also the bounds of every other JSON Lines file read back (the store's change log): `source` may be
 * a handle its caller opened (and closes), read from byte `from`. From a byte other than 0 the first
 * line is a part of one: its bytes are passed over unheld and it is not yielded (it is line 1).
 */
export async function* captureLines(source: string | FileHandle, from?: number): AsyncGenerator<CaptureLine> {
  const handle = typeof source === 'string' ? await open(source, 'r') : source;
  // Sequential reads unless a start is given: a pipe cannot be read at a position.
  let position = from ?? null;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let parts: Buffer[] = [];
    let held = 0;
    let overflow = 0;
    let zeros = true;
    let number = 0;
    let partial = (from ?? 0) > 0;
    const finish = (isLast: boolean): CaptureLine | undefined => {
      number += 1;
      // A line of zero bytes only (a hole, or the part of one a read from a position starts in) is
      // skipped like an overlong one, never joined into a string.
      if (overflow > 0 || (held > 0 && zeros)) {
        const line: CaptureLine = { kind: 'skipped', number, bytes: overflow || held, zeros };
        overflow = 0;
        parts = [];
        held = 0;
        zeros = true;
        return line;
      }
      const text = Buffer.concat(parts, held).toString('utf8');
      parts = [];
      held = 0;
      zeros = true;
      return { kind: 'line', number, text: text.endsWith('\r') ? text.slice(0, -1) : text, last: isLast };
    };
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      if (position !== null) position += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      let start = 0;
      if (partial) {
        const newline = data.indexOf(0x0a);
        if (newline === -1) continue;
        partial = false;
        number = 1;
        start = newline + 1;
      }
      while (start < data.length) {
        const newline = data.indexOf(0x0a, start);
        const end = newline === -1 ? data.length : newline;
        const piece = data.subarray(start, end);
        if (overflow > 0 || held + piece.length > MAX_CAPTURE_LINE_BYTES) {
          if (overflow === 0) {
            overflow = held;
            parts = [];
            held = 0;
          }
          overflow += piece.length;
          if (zeros && !allZero(piece)) zeros = false;
        } else if (piece.length > 0) {
          // The chunk is read into again, so a piece is copied; zero bytes share the zero buffer, so
          // that reading through a hole allocates nothing.
          const zero = zeros && allZero(piece);
          if (!zero) zeros = false;
          parts.push(zero ? ZEROS.subarray(0, piece.length) : Buffer.from(piece));
          held += piece.length;
        }
        if (newline === -1) break;
        const line = finish(false);
        if (line) yield line;
        start = end + 1;
      }
    }
    if (held > 0 || overflow > 0) {
      const line = finish(true);
      if (line) yield line;
    }
  } finally {
    if (typeof source === 'string') await handle.close();
  }
}
