import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '../util/fs-errors.js';

/**
 * Notes that are said once per configuration directory (the local-environment note, a credential
 * typed as a flag), not on every run: the ones already said are remembered in `notices.json` beside
 * the settings. The file is ours but read as input: anything but a short list of names counts as
 * empty, and a directory that cannot be written only means the note is said again next time.
 */
const FILE_NAME = 'notices.json';
/** A handful of names is all it ever holds: a larger file is not ours to trust. */
const MAX_FILE_BYTES = 64 * 1024;
const MAX_NAMES = 100;

function readSaid(path: string): string[] {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return [];
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const said = (value as { said?: unknown } | null)?.said;
    return Array.isArray(said)
      ? said.filter((name): name is string => typeof name === 'string').slice(0, MAX_NAMES)
      : [];
  } catch {
    return [];
  }
}

/**
 * Whether the note `name` is still to be said in the configuration directory `dir`; when it is, it
 * is recorded as said (so the caller says it now, and never again there).
 */
export function firstTimeFor(dir: string, name: string): boolean {
  const path = join(dir, FILE_NAME);
  const said = readSaid(path);
  if (said.includes(name)) return false;
  try {
    makeDirectory(dir);
    // Written whole under another name, then renamed: a reader never sees half a file.
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ said: [...said, name] })}\n`, { mode: 0o600 });
    renameSync(temp, path);
  } catch {
    // Not remembered: said again next time, which is the lesser harm.
  }
  return true;
}
