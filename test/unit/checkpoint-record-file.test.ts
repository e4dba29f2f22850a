/**
 * The checkpoint record file's two slots (src/store/file/checkpoint-record-file.ts): the newest whole
 * record is read back; a write torn in the newest slot leaves the one before; a record too long for
 * a slot is not written, and the one before stands.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { RecordFileWriter, recordText, SLOT_BYTES } from '../../src/store/file/checkpoint-record-file.js';

function place() {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-record-'));
  let temps = 0;
  const temp = () => {
    temps += 1;
    return join(dir, `temp-${temps}`);
  };
  return { path: join(dir, 'record'), temp };
}

const record = (pages: number, extra = '') => JSON.stringify({ version: 1, pages, extra });

describe('checkpoint record file', () => {
  it('reads back the newest of several records, written whole once, then slot by slot', async () => {
    const { path, temp } = place();
    const writer = new RecordFileWriter(path, 0o600);
    for (let pages = 1; pages <= 5; pages += 1) {
      await writer.write(record(pages), temp());
      assert.equal(recordText(await readFile(path)), record(pages));
    }
    // A shorter record over a longer one: the slot's line ends at its own newline.
    await writer.write(record(6, 'x'.repeat(500)), temp());
    await writer.write(record(7, 'x'.repeat(900)), temp());
    await writer.write(record(8), temp());
    assert.equal(recordText(await readFile(path)), record(8));
    await writer.close();
  });

  it('a write torn in the newest slot leaves the record before it; both torn, none', async () => {
    const { path, temp } = place();
    const writer = new RecordFileWriter(path, 0o600);
    for (let pages = 1; pages <= 4; pages += 1) await writer.write(record(pages), temp());
    await writer.close();
    // Record 4 is in slot 0 (1 whole, 2 in slot 1, 3 in slot 0, 4 in slot 1): tear slot 1.
    const bytes = readFileSync(path);
    const torn = Buffer.from(bytes);
    torn[SLOT_BYTES + 20] = 0x21;
    writeFileSync(path, torn);
    assert.equal(recordText(readFileSync(path)), record(3));
    torn[20] = 0x21;
    writeFileSync(path, torn);
    assert.equal(recordText(readFileSync(path)), undefined);
  });

  it('a write torn as the kernel would leave it (the new line’s start over the old line’s tail) leaves the record before', async () => {
    const { path, temp } = place();
    const writer = new RecordFileWriter(path, 0o600);
    await writer.write(record(1, 'a'.repeat(300)), temp());
    await writer.write(record(2, 'b'.repeat(300)), temp());
    await writer.write(record(3, 'c'.repeat(300)), temp());
    const complete = readFileSync(path);
    await writer.write(record(4, 'd'.repeat(300)), temp()); // into slot 1, over record 2
    await writer.close();
    const after = readFileSync(path);
    // Only the first 100 bytes of record 4 reached the disk: the rest of the line is record 2's.
    const torn = Buffer.concat([after.subarray(0, SLOT_BYTES + 100), complete.subarray(SLOT_BYTES + 100)]);
    assert.equal(recordText(torn), record(3, 'c'.repeat(300)));
    // A slot 0 torn without its newline: its search for one must not take slot 1's line.
    const noNewline = Buffer.from(after);
    noNewline.fill(0x61, 0, SLOT_BYTES);
    assert.equal(recordText(noNewline), record(4, 'd'.repeat(300)));
  });

  it('keeps non-ASCII text whole (the CRC is over the bytes written)', async () => {
    const { path, temp } = place();
    const writer = new RecordFileWriter(path, 0o600);
    await writer.write(record(1, 'Zürich – 東京'), temp());
    await writer.write(record(2, 'Zürich – 東京 ✓'), temp());
    await writer.close();
    assert.equal(recordText(readFileSync(path)), record(2, 'Zürich – 東京 ✓'));
  });

  it('writes no record too long for a slot: the one before stands, and the next ones go on alternating', async () => {
    const { path, temp } = place();
    const writer = new RecordFileWriter(path, 0o600);
    const long = record(4, 'y'.repeat(SLOT_BYTES));
    assert.equal(await writer.write(long, temp()), false);
    assert.deepEqual(readdirSync(dirname(path)), [], 'nothing written for a first record too long');
    for (let pages = 5; pages <= 6; pages += 1) assert.equal(await writer.write(record(pages), temp()), true);
    assert.equal(await writer.write(long, temp()), false);
    assert.equal(recordText(readFileSync(path)), record(6));
    for (let pages = 7; pages <= 9; pages += 1) {
      await writer.write(record(pages), temp());
      assert.equal(recordText(readFileSync(path)), record(pages));
    }
    await writer.close();
  });

  it('a file written whole as JSON (no slots) is no record', () => {
    assert.equal(recordText(Buffer.from(`${record(3)}\n`)), undefined);
  });
});
