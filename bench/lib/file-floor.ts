import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The floor of a file store rewrite (the "10 changes" rows of `bench scale` and `bench
 * file-merge`): the data file's bytes read and written once to a temp file, fsynced and renamed to
 * `${file}.floor-copy`, which the caller removes outside its timing.
 */
export function rewriteFloor(file: string): void {
  const bytes = readFileSync(file);
  const temp = `${file}.floor`;
  writeFileSync(temp, bytes);
  const fd = openSync(temp, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, `${file}.floor-copy`);
}
