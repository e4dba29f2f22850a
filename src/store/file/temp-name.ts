import { randomBytes } from 'node:crypto';

/**
 * The one place that names a file of a process beside a target and recognises such names:
 * `.<file>.<pid>.<8 hex><suffix>`, `.tmp` for a temporary file (and `.staging`, `.checkpoint` for the
 * kept pages of a full read and their record, full-read-checkpoint.ts). The pid lets a later run tell
 * litter of a dead process from the file a live one is writing.
 */
const SUFFIX = '.tmp';
export const STAGING_SUFFIX = '.staging';
export const CHECKPOINT_SUFFIX = '.checkpoint';
/** Every kind of file of a process beside a target. */
export const PROCESS_FILE_SUFFIXES: readonly string[] = [SUFFIX, STAGING_SUFFIX, CHECKPOINT_SUFFIX];

export function tempFileName(
  fileName: string,
  pid = process.pid,
  nonce = randomBytes(4).toString('hex'),
  suffix = SUFFIX,
): string {
  return `.${fileName}.${pid}.${nonce}${suffix}`;
}

/** The pid that wrote `name` if it is a temporary file (or a file of `suffix`) of `fileName`, else undefined. */
export function tempFileOwner(name: string, fileName: string, suffix = SUFFIX): number | undefined {
  const prefix = `.${fileName}.`;
  if (!name.startsWith(prefix) || !name.endsWith(suffix)) return undefined;
  const parts = name.slice(prefix.length, -suffix.length).split('.');
  const [pid, nonce] = parts;
  if (parts.length !== 2 || pid === undefined || nonce === undefined) return undefined;
  if (!/^\d+$/.test(pid) || !/^[0-9a-f]{8}$/.test(nonce)) return undefined;
  return Number(pid);
}
