import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AtomicItemWriter } from '../../src/store/file/atomic-item-writer.js';
import type { FileDigest, Item } from '../../src/store/file/data-file.js';
import { FileChecksum } from '../../src/store/file/file-checksum.js';
import { mergeIntoFile } from '../../src/store/file/file-store-merge.js';
import { readKept } from '../../src/store/file/staged-bytes.js';
import { compareIds, idKey, type ItemId } from '../../src/dataset/item-id.js';
import { tempDir } from '../helpers/cli.js';

/** The merge's meaning, spelled out over parsed items: what the byte-level merge must equal. */
function reference(old: Item[], upserts: Item[], deletedIds: ItemId[]): Item[] {
  const byId = new Map(old.map((item) => [idKey(item.id), item]));
  for (const id of deletedIds) byId.delete(idKey(id));
  for (const item of upserts) byId.set(idKey(item.id), item);
  return [...byId.values()].sort((a, b) => compareIds(a.id, b.id));
}

async function written(items: Item[]): Promise<{ file: string; digest: FileDigest }> {
  const file = join(tempDir(), 'data.json');
  const writer = await AtomicItemWriter.create(file);
  for (const item of items) await writer.write(item);
  return { file, digest: await writer.commit() };
}

const textOf = (items: Item[]) =>
  `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}${items.length ? '\n' : ''}]\n`;

/** The state's checksum of a file holding `items` (file-checksum.ts): over its bytes. */
function digestOf(items: Item[]): FileDigest {
  const checksum = new FileChecksum();
  checksum.add(Buffer.from(textOf(items)));
  return { items: items.length, checksum: checksum.toString() };
}

const range = (from: number, to: number, extra = '') =>
  Array.from({ length: to - from + 1 }, (_, index) => ({ id: from + index, name: `item ${from + index}${extra}` }));
// Long lines, so that a 1 MiB read ends inside one (lines cross chunk boundaries).
const long = range(1, 3000, 'x'.repeat(700));
const CHUNK = 2 * 1024 * 1024;
// A file whose first 2 MiB read ends right after its last item: its closing "]" comes alone in the next.
const endingAtChunk = (() => {
  const items = range(1, 3000, 'x'.repeat(700));
  while (textOf(items).length - 2 - CHUNK > 500) items.pop();
  const last = items.at(-1) as Item & { name: string };
  last.name = last.name.slice(0, last.name.length - (textOf(items).length - 2 - CHUNK));
  assert.equal(textOf(items).length - 2, CHUNK);
  return items;
})();
// Many lines and changes spread over them: several chunks, some with no change at all.
const many = range(1, 40_000, ' padding to make the lines longer than ids');
const manyUpserts = [-1, 1, 2, 777, 778, 20_000, 20_000.5, 39_999, 40_000, 40_001].map((id) => ({ id, v: 1 }));

const cases: Array<[string, Item[], Item[], ItemId[]]> = [
  ['nothing changed', range(1, 5), [], []],
  ['an empty file, one insert', [], [{ id: 3 }], []],
  ['inserts before the first, between, after the last', range(10, 20), [{ id: 1 }, { id: 15.5 }, { id: 99 }], []],
  [
    'replacements and deletions',
    range(1, 10),
    [
      { id: 2, v: 1 },
      { id: 9, v: 2 },
    ],
    [3, 10, 1],
  ],
  ['an id both replaced and deleted stays (data is its state)', range(1, 4), [{ id: 2, v: 1 }], [2, '4']],
  ['deletions of ids not there', range(1, 4), [], [0, 7, 'zz']],
  ['string ids and numeric strings', [{ id: 1 }, { id: '2a' }, { id: 'b' }], [{ id: 'a' }, { id: '1', v: 1 }], ['b']],
  ['ids that are not plain integers', [{ id: -5 }, { id: 0 }, { id: 1.5 }, { id: 1e21 }], [{ id: 0, v: 1 }], [-5]],
  ['an item whose id is not its first key', [{ a: 1, id: 1 } as Item, { a: 2, id: 2 } as Item], [{ id: 3 }], [1]],
  [
    'non-ASCII text',
    [
      { id: 1, t: 'é€😀' },
      { id: 2, t: '\u2028' },
    ],
    [{ id: 3, t: 'ü' }],
    [],
  ],
  ['lines across read chunks', long, [{ id: 1500, v: 1 }, { id: 5000 }], [2999, 1]],
  ['a file whose read chunk ends before its closing ]', endingAtChunk, [{ id: 5000 }], [2]],
  ['the closing ] alone in a chunk, the last item replaced', endingAtChunk, [{ id: endingAtChunk.length, v: 1 }], []],
  ['many lines, changes at both ends and in between', many, manyUpserts, [3, 4, 19_999, 40_000, 50_000]],
  ['every item deleted', range(1, 6), [], [1, 2, 3, 4, 5, 6]],
  ['the last item deleted, an insert after it', range(1, 6), [{ id: 9 }], [6]],
  [
    'lines longer than a read chunk (2 MiB), kept and replaced',
    [{ id: 1, big: 'y'.repeat(5 * 1024 * 1024) }, { id: 2 }, { id: 3, big: 'z'.repeat(3 * 1024 * 1024) }],
    [{ id: 3, v: 1 }],
    [],
  ],
];

describe('mergeIntoFile (bytes of unchanged lines copied, only changed ids parsed)', () => {
  for (const [name, old, upserts, deletedIds] of cases)
    it(`merges ${name} as the item-by-item meaning does, with the checksum of what it wrote`, async () => {
      const { file, digest } = await written(old);
      assert.deepEqual(digest, digestOf(old));
      const writer = await AtomicItemWriter.create(file);
      const removed: Item[] = [];
      const result = await mergeIntoFile(file, { upserts, deletedIds }, [digest], writer, (item) => removed.push(item));
      const committed = await writer.commit();
      const expected = reference(old, upserts, deletedIds);
      const text = readFileSync(file, 'utf8');
      assert.deepEqual(JSON.parse(text), expected);
      assert.equal(text, textOf(expected));
      assert.deepEqual(committed, digestOf(expected));
      assert.equal(result.total, expected.length);
      const kept = new Set(expected.map((item) => idKey(item.id)));
      assert.deepEqual(
        removed.map((item) => item.id),
        old.filter((item) => !kept.has(idKey(item.id))).map((item) => item.id),
      );
    });

  const damages: Array<[string, (text: string) => string, RegExp]> = [
    ['one byte changed inside an item (same size)', (text) => text.replace('item 3', 'item 4'), /differs/],
    ['a line dropped', (text) => text.replace('{"id":2,"name":"item 2"},\n', ''), /holds 4 items/],
    [
      'a line that is not JSON',
      (text) => text.replace('{"id":2,"name":"item 2"}', '{"id":2,"name":"item 2"'),
      /line 3 is not JSON/,
    ],
    ['a line with another id first', (text) => text.replace('{"id":2,', '{"x":1,"id":2,'), /differs/],
    ['ids out of order', (text) => text.replace('{"id":2,', '{"id":9,'), /not sorted/],
    ['a cut file', (text) => text.slice(0, text.lastIndexOf(']')), /ends before its closing/],
    // Edited by hand (an editor that writes Windows line ends): not the bytes the last sync wrote.
    ['CRLF line ends', (text) => text.replaceAll('\n', '\r\n'), /its content differs/],
  ];
  for (const [name, spoil, pattern] of damages)
    it(`refuses ${name} before writing anything, saying what is wrong`, async () => {
      const { file, digest } = await written(range(1, 5));
      writeFileSync(file, spoil(readFileSync(file, 'utf8')));
      const writer = await AtomicItemWriter.create(file);
      await assert.rejects(mergeIntoFile(file, { upserts: [{ id: 3, v: 1 }], deletedIds: [] }, [digest], writer), {
        code: 'ERR_IO',
        details: { reason: 'data_file_damaged', path: file },
        message: pattern,
      } as never);
      await writer.discard();
    });

  it('checks the old file in every merge: a checksum that no longer matches is refused, whatever its count', async () => {
    const old = range(1, 50);
    const { file, digest } = await written(old);
    const changes = { upserts: [{ id: 7, v: 1 }, { id: 60 }], deletedIds: [8] };
    const writer = await AtomicItemWriter.create(file);
    await assert.rejects(
      mergeIntoFile(file, changes, [{ ...digest, checksum: 'crc32:00000000:1' }], writer),
      /its content differs from what the last sync wrote/,
    );
    await writer.discard();
  });

  it('refuses one flipped byte far from any change in a file of many chunks, and leaves the file as it was', async () => {
    const { file, digest } = await written(many);
    const text = readFileSync(file);
    const at = text.indexOf('"id":31234,') + 20;
    text[at] = (text[at] ?? 0) ^ 1;
    writeFileSync(file, text);
    const writer = await AtomicItemWriter.create(file);
    await assert.rejects(mergeIntoFile(file, { upserts: [{ id: 2, v: 1 }], deletedIds: [] }, [digest], writer), {
      details: { reason: 'data_file_damaged', path: file },
      message: /its content differs from what the last sync wrote/,
    } as never);
    await writer.discard();
    assert.deepEqual(readFileSync(file), text);
  });

  it('matches a pending state: a crash between the rename and the state', async () => {
    const { file, digest } = await written(range(1, 5));
    const writer = await AtomicItemWriter.create(file);
    const older = { items: 4, checksum: 'crc32:0badc0de:40' };
    await mergeIntoFile(file, { upserts: [{ id: 6 }], deletedIds: [] }, [older, digest], writer);
    assert.deepEqual(await writer.commit(), digestOf([...range(1, 5), { id: 6 }]));
  });
});

describe('AtomicItemWriter checksum', () => {
  it('a file continued from a checkpoint gets the checksum of all its bytes (the kept ones read back once)', async () => {
    const items = range(1, 30);
    const file = join(tempDir(), 'data.json');
    const temp = `${file}.staging`;
    const first = await AtomicItemWriter.create(file, temp);
    for (const item of items.slice(0, 12)) await first.write(item);
    const { bytes } = await first.flush();
    await first.write({ id: 999 }); // after the checkpoint: dropped when continued
    await first.close();
    const kept = await readKept(temp, bytes);
    assert.ok(typeof kept !== 'string', String(kept));
    assert.equal(kept.items, 12);
    const continued = await AtomicItemWriter.continue(file, temp, kept);
    for (const item of items.slice(12)) await continued.write(item);
    assert.deepEqual(await continued.commit(), digestOf(items));
    assert.equal(readFileSync(file, 'utf8'), textOf(items));
  });
});
