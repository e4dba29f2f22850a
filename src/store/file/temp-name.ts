import { randomBytes } from 'node:crypto';

/**
 * The one place that names a temporary file beside a target and recognises such names:
 * `.<file>.<pid>.<8 hex>.tmp`. The pid lets a later run tell litter of a dead process from the
 * file a live one is writing.
 */
const SUFFIX = '.tmp';

export function tempFileName(fileName: string, pid = process.pid, nonce = randomBytes(4).toString('hex')): string {
  return `.${fileName}.${pid}.${nonce}${SUFFIX}`;
}

/** The pid that wrote `name` if it is a temporary file of `fileName`, else undefined. */
export function tempFileOwner(name: string, fileName: string): number | undefined {
  const prefix = `.${fileName}.`;
  if (!name.startsWith(prefix) || !name.endsWith(SUFFIX)) return undefined;
  const parts = name.slice(prefix.length, -SUFFIX.length).split('.');
  const [pid, nonce] = parts;
  if (parts.length !== 2 || pid === undefined || nonce === undefined) return undefined;
  if (!/^\d+$/.test(pid) || !/^[0-9a-f]{8}$/.test(nonce)) return undefined;
  return Number(pid);
}
