import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** An errno code as a person says it ("EEXIST" helps nobody who is not reading libc). */
const SENTENCES: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EEXIST: 'something already exists there',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EMFILE: 'too many files are open',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EBUSY: 'the file is busy',
  EXDEV: 'it is on another file system',
};

export function errnoSentence(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && SENTENCES[code]) return SENTENCES[code] as string;
  const message = error instanceof Error ? error.message : String(error);
  // "EACCES: permission denied, open '/x'" → "permission denied"; "EBADF: bad file descriptor, write" too
  return message.replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '');
}

/**
 * `mkdir -p` that cannot spin. Node's recursive mkdir loops forever where a parent exists but refuses
 * children with ENOENT (e.g. under /proc), holding the event loop's thread pool and every later
 * signal. Here each missing component is made once, from the deepest existing ancestor down; the first
 * that cannot be made is an error naming that path.
 */
export function makeDirectory(path: string, mode = 0o700): void {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      if (statSync(at).isDirectory()) break;
      throw Object.assign(new Error('it is a file, not a directory'), { code: 'EISFILE', path: at });
    } catch (error) {
      // ENOTDIR: a file further up; walking on finds it and names it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      // The parent exists, yet it says ENOENT: a place that takes no directories (/proc, a dead mount).
      if (code === 'ENOENT')
        throw Object.assign(new Error('no directory can be created there'), { code: 'ENOTCREATABLE', path: dir });
      throw Object.assign(error as Error, { path: dir });
    }
  }
}
