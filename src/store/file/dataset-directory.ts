import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { LedgerhookError } from '../../errors.js';
import { makeDirectory } from '../../util/fs-errors.js';
import { writeFailed } from './write-failed.js';
import { removeStaleTempFiles } from './stale-temp-files.js';

/**
 * Creates a data file's directory and checks that it really is inside the output directory: a
 * symlink planted under it never leads a write elsewhere. Temporary files a killed run left beside
 * the dataset's file are swept on the way.
 */
export async function prepareDatasetDirectory(outDir: string, file: string, fileName: string): Promise<void> {
  const dir = dirname(file);
  try {
    makeDirectory(dir);
    const root = await realpath(outDir);
    const real = await realpath(dir);
    const rel = relative(root, real);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new LedgerhookError('ERR_USAGE', `${dir} leads outside ${outDir} (to ${real}); nothing written`, {
        details: { reason: 'path_outside_out_dir', path: dir },
      });
  } catch (error) {
    throw writeFailed(file, error);
  }
  await removeStaleTempFiles(dir, fileName);
}
