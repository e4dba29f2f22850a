import { type CaptureLine, captureLines, MAX_CAPTURE_LINE_BYTES } from './capture-lines.js';

/**
 * Warnings kept per file read: a file anyone may have written can hold millions of bad lines, and
 * each warning is held in memory; past this many they are only counted, and said as one line.
 */
export const MAX_LINE_WARNINGS = 100;

/** The lines a JSON Lines reader skipped: each counted, each said once, in the words of what is read. */
export interface SkippedLines {
  /** Put before each warning: '' for a capture file, `recording.jsonl ` for a recording's timeline. */
  readonly file: string;
  /** Who writes the file, named when its last line is torn: "the writer was stopped mid-line". */
  readonly writer: string;
  /** One per skipped line, at most MAX_LINE_WARNINGS, then one line counting the rest. */
  readonly warnings: string[];
  /** Every line skipped: over the length bound, not JSON, or JSON of another shape. */
  count: number;
}

export function skippedLines(file: string, writer: string): SkippedLines {
  return { file, writer, warnings: [], count: 0 };
}

/** Counts a skipped line and says why, once (`why` completes "line N is ..."). */
export function skipLine(skipped: SkippedLines, number: number, why: string): void {
  skipped.count += 1;
  if (skipped.count <= MAX_LINE_WARNINGS) skipped.warnings.push(`${skipped.file}line ${number} is ${why}; skipped`);
}

/** After the last line: the lines skipped past the warnings kept, as one warning. */
function sayRest(skipped: SkippedLines): void {
  const rest = skipped.count - MAX_LINE_WARNINGS;
  if (rest > 0) skipped.warnings.push(`${skipped.file}${rest} more ${rest === 1 ? 'line' : 'lines'} skipped`);
}

export interface JsonLine {
  number: number;
  value: unknown;
}

/**
 * The JSON values of a JSON Lines file, streamed within captureLines' bounds (a line over
 * MAX_CAPTURE_LINE_BYTES is never held). Blank lines, and runs of zero bytes (a hole in a sparse or
 * preallocated file), are passed silently; a line over the bound or not JSON is skipped into
 * `skipped`, a torn last line said as the writer stopped mid-line. The caller checks each value's
 * shape and skips with skipLine what is not its own.
 */
export async function* jsonLines(
  /** A path, or captureLines already started (to tell a file that cannot be opened from its lines). */
  source: string | AsyncIterable<CaptureLine>,
  skipped: SkippedLines,
): AsyncGenerator<JsonLine> {
  for await (const line of typeof source === 'string' ? captureLines(source) : source) {
    if (line.kind === 'skipped') {
      if (!line.zeros) skipLine(skipped, line.number, `longer than ${MAX_CAPTURE_LINE_BYTES} bytes (${line.bytes})`);
      continue;
    }
    if (line.text.replaceAll('\0', '').trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      skipLine(skipped, line.number, line.last ? `incomplete (${skipped.writer} was stopped mid-line)` : 'not JSON');
      continue;
    }
    yield { number: line.number, value };
  }
  sayRest(skipped);
}
