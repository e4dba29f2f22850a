import { readCaptures, type CaptureFileSelection, type CaptureSelector } from '../capture/read-captures.js';
import { usageError } from '../errors.js';
import { plural } from '../util/plural.js';
import { writeLine, type CliContext } from './context.js';

const SHOWN = 3;

/**
 * Reads a capture for the commands that show it. Skipped lines (a torn last line after a crash)
 * are warnings, a few at most; a file with lines but no capture at all is the wrong file.
 */
export async function readCaptureFile(
  file: string,
  ctx: CliContext,
  select?: CaptureSelector,
): Promise<CaptureFileSelection> {
  const capture = await readCaptures(file, select);
  const { total, warnings } = capture;
  if (total === 0 && warnings.length > 0)
    throw usageError(
      `${file} holds no captured delivery (${plural(warnings.length, 'line')} skipped): is it a file written by listen --capture?`,
      'capture_selection',
    );
  for (const warning of warnings.slice(0, SHOWN))
    writeLine(ctx.stderr, `${ctx.color.yellow('warning:')} ${file}: ${warning}`);
  if (warnings.length > SHOWN)
    writeLine(
      ctx.stderr,
      `${ctx.color.yellow('warning:')} ${file}: ${plural(warnings.length - SHOWN, 'more line')} skipped`,
    );
  return capture;
}
