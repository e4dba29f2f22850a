import assert from 'node:assert/strict';
import { chmodSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../src/store/file/file-fingerprint.js';
import { tempDir } from '../helpers/cli.js';

describe('fingerprintOf (what a no-change sync compares instead of reading the file)', () => {
  const edits: Array<[string, (file: string) => void]> = [
    ['same-size bytes written in place, mtime set back exactly', (file) => writeFileSync(file, 'abcX')],
    ['a chmod', (file) => chmodSync(file, 0o644)],
    [
      'another file of the same size and times renamed over it',
      (file) => {
        const other = `${file}.other`;
        writeFileSync(other, 'abcd');
        utimesSync(other, 1_000_000, 1_000_000);
        renameSync(other, file);
      },
    ],
  ];
  for (const [name, edit] of edits)
    it(`moves on ${name}`, async () => {
      const file = join(tempDir(), 'data.json');
      writeFileSync(file, 'abcd');
      utimesSync(file, 1_000_000, 1_000_000); // whole seconds: restorable exactly
      const before = await fingerprintOf(file);
      edit(file);
      utimesSync(file, 1_000_000, 1_000_000);
      assert.equal(statSync(file).mtimeMs, 1_000_000_000);
      assert.equal(statSync(file).size, 4);
      assert.notEqual(await fingerprintOf(file), before);
    });

  it('stays the same while nothing touches the file, and is undefined for a missing one', async () => {
    const file = join(tempDir(), 'data.json');
    writeFileSync(file, 'abcd');
    assert.equal(await fingerprintOf(file), await fingerprintOf(file));
    assert.equal(await fingerprintOf(join(tempDir(), 'none.json')), undefined);
  });
});
