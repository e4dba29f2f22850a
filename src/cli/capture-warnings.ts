import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCaptures, type CaptureFileSelection, type CaptureSelector } from '../capture/read-captures.js';
import { DELIVERIES_FILE, RECORDING_FILE } from '../record/recording-format.js';
import { usageError } from '../errors.js';
import { plural } from '../util/plural.js';
import { writeLine, type CliContext } from './context.js';

const SHOWN = 3;

/** A recording directory (`ledgerhook record --out`) stands for its deliveries, a capture file. */
export function recordingDeliveries(path: string): string {
  try {
    if (statSync(path).isDirectory() && existsSync(join(path, RECORDING_FILE))) return join(path, DELIVERIES_FILE);
  } catch {
    // Not there: readCaptures names the path in its error.
  }
  return path;
}

/**
 * The lines of a capture that were skipped, on stderr: the first few each with why, then how many
 * more. Said once per file read, whichever command read it.
 */
export function sayCaptureWarnings(
  file: string,
  { warnings, skipped }: { warnings: readonly string[]; skipped: number },
  ctx: CliContext,
): void {
  for (const warning of warnings.slice(0, SHOWN))
    writeLine(ctx.stderr, `${ctx.color.yellow('warning:')} ${file}: ${warning}`);
  if (skipped > SHOWN)
    writeLine(ctx.stderr, `${ctx.color.yellow('warning:')} ${file}: ${plural(skipped - SHOWN, 'more line')} skipped`);
}

/**
 * Reads a capture for the commands that show it. Skipped lines (a torn last line after a crash)
 * are warnings, a few at most; a file with lines but no capture at all is the wrong file.
 */
export async function readCaptureFile(
  given: string,
  ctx: CliContext,
  select?: CaptureSelector,
): Promise<CaptureFileSelection> {
  const file = recordingDeliveries(given);
  const capture = await readCaptures(file, select);
  if (capture.total === 0 && capture.skipped > 0)
    throw usageError(
      `${file} holds no captured delivery (${plural(capture.skipped, 'line')} skipped): is it a file written by listen --capture?`,
      'capture_selection',
    );
  sayCaptureWarnings(file, capture, ctx);
  return capture;
}
