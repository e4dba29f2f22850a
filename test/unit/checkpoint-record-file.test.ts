/**
 * The checkpoint record file's two slots (src/store/file/checkpoint-record-file.ts): the newest whole
 * record is read back; a write torn in the newest slot leaves the one before; an earlier version's
 * whole-file record still reads; a record too long for a slot is written whole.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('checkpoint record file (issue 23)', () => {
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

  it('reads a record an earlier version wrote whole, and writes a record too long for a slot whole', async () => {
    const { path, temp } = place();
    writeFileSync(path, `${record(3)}\n`);
    assert.deepEqual(JSON.parse(recordText(readFileSync(path)) ?? ''), JSON.parse(record(3)));
    const writer = new RecordFileWriter(path, 0o600);
    const long = record(4, 'y'.repeat(SLOT_BYTES));
    await writer.write(long, temp());
    await writer.write(record(5), temp()); // after a whole one, the next starts again in slot 0
    assert.equal(recordText(readFileSync(path)), record(5));
    await writer.write(long, temp());
    assert.deepEqual(JSON.parse(recordText(readFileSync(path)) ?? ''), JSON.parse(long));
    await writer.close();
  });
});
