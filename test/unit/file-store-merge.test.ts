import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AtomicItemWriter, type FileDigest, type Item, ItemDigest } from '../../src/store/file/data-file.js';
import { mergeIntoFile } from '../../src/store/file/file-store-merge.js';
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

function digestOf(items: Item[]): FileDigest {
  const digest = new ItemDigest();
  for (const item of items) digest.add(JSON.stringify(item));
  return digest.result();
}

const range = (from: number, to: number, extra = '') =>
  Array.from({ length: to - from + 1 }, (_, index) => ({ id: from + index, name: `item ${from + index}${extra}` }));
// Long lines, so that a 1 MiB read ends inside one (lines cross chunk boundaries).
const long = range(1, 3000, 'x'.repeat(700));

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
  [
    'lines longer than a read chunk (2 MiB), kept and replaced',
    [{ id: 1, big: 'y'.repeat(5 * 1024 * 1024) }, { id: 2 }, { id: 3, big: 'z'.repeat(3 * 1024 * 1024) }],
    [{ id: 3, v: 1 }],
    [],
  ],
];

describe('mergeIntoFile (bytes of unchanged lines copied, only changed ids parsed)', () => {
  for (const [name, old, upserts, deletedIds] of cases)
    it(`merges ${name} as the item-by-item meaning does, with the digest of what it wrote`, async () => {
      const { file, digest } = await written(old);
      const writer = await AtomicItemWriter.create(file);
      const removed: Item[] = [];
      const result = await mergeIntoFile(file, { upserts, deletedIds }, [digest], writer, (item) => removed.push(item));
      const committed = await writer.commit();
      const expected = reference(old, upserts, deletedIds);
      const text = readFileSync(file, 'utf8');
      assert.deepEqual(JSON.parse(text), expected);
      assert.equal(
        text,
        `[\n${expected.map((item) => JSON.stringify(item)).join(',\n')}${expected.length ? '\n' : ''}]\n`,
      );
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
      /differs/,
    ],
    ['a line with another id first', (text) => text.replace('{"id":2,', '{"x":1,"id":2,'), /differs/],
    ['ids out of order', (text) => text.replace('{"id":2,', '{"id":9,'), /not sorted/],
    ['a cut file', (text) => text.slice(0, text.lastIndexOf(']')), /ends before its closing/],
  ];
  for (const [name, spoil, pattern] of damages)
    it(`refuses ${name} before writing anything`, async () => {
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
      mergeIntoFile(file, changes, [{ ...digest, checksum: 'sha256:other' }], writer),
      /its content differs from what the last sync wrote/,
    );
    await writer.discard();
  });

  it('takes a file with CRLF line ends (edited by hand) and writes it back with LF', async () => {
    const { file, digest } = await written(range(1, 4));
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('\n', '\r\n'));
    const writer = await AtomicItemWriter.create(file);
    await mergeIntoFile(file, { upserts: [{ id: 2, v: 1 }], deletedIds: [] }, [digest], writer);
    await writer.commit();
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), reference(range(1, 4), [{ id: 2, v: 1 }], []));
    assert.ok(!readFileSync(file, 'utf8').includes('\r'));
  });
});
