import { dirname } from 'node:path';
import { LedgerhookError } from '../../errors.js';
import { errnoSentence } from '../../util/fs-errors.js';

/** A failed write in the output directory as one sentence (errno in words), named by what could not be written. */
export function writeFailed(path: string, error: unknown): LedgerhookError {
  if (error instanceof LedgerhookError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new LedgerhookError(
    'ERR_IO',
    `cannot write in ${(error as { path?: string }).path ?? dirname(path)}: ${errnoSentence(error)}`,
    {
      cause: error,
      details: { reason: 'out_dir_not_writable', path: dirname(path), code },
    },
  );
}
