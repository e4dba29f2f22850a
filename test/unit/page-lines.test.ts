/**
 * A page serialised at once must give the bytes of the item-by-item path, whatever the items
 * hold; where it cannot tell the items apart it gives way to that path. A page written from its
 * response's bytes must give those bytes too: compact items as they stand, the others serialised.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AtomicItemWriter } from '../../src/store/file/atomic-item-writer.js';
import type { FileDigest, Item } from '../../src/store/file/data-file.js';
import { FullReadWriter } from '../../src/store/file/full-read-writer.js';
import { locateItems } from '../../src/dataset/item-bytes.js';
import { pageLines, responseLines, serialisedLines } from '../../src/store/file/page-lines.js';
import { tempDir } from '../helpers/cli.js';

/** The item-by-item bytes of one page. */
function itemByItem(items: readonly Item[]) {
  return { lines: items.map((item) => JSON.stringify(item)).join(',\n'), count: items.length };
}

function viaPage(items: readonly Item[]) {
  const page = pageLines(items);
  if (page === undefined) return undefined;
  return { lines: page.lines.toString('utf8'), count: page.count };
}

const HOSTILE: Item[] = [
  { id: 1, text: 'plain' },
  { id: 2, empty: {}, list: [], nested: { a: { b: [1, 2, { c: null }] } } },
  { id: 3, text: 'quote " backslash \\ slash / newline \n tab \t nul \u0000 bell \u0007' },
  { id: 4, text: 'unicode é € 😀 line sep \u2028 para sep \u2029 lone \ud800 and \udfff' },
  { id: 5, text: '}{,][ "}" ,{ } , {' },
  { id: 'six', n: -0, big: 1e21, small: 5e-7, frac: 0.1, neg: -12.5, t: true, f: false, z: null },
  { id: 7, '': 'empty key', '}': '{', 'key with "quotes"': 1, 10: 'integer key', 2: 'first' },
];

describe('pageLines', () => {
  it('gives the bytes of JSON.stringify item by item, for hostile contents', () => {
    for (let size = 1; size <= HOSTILE.length; size += 1) {
      const items = HOSTILE.slice(0, size);
      assert.deepEqual(viaPage(items), itemByItem(items), `the first ${size}`);
    }
    // Items that are empty objects: boundaries "},{" next to each other.
    const empties = [{}, {}, { id: 1 }, {}] as unknown as Item[];
    assert.deepEqual(viaPage(empties), itemByItem(empties));
  });

  it('gives way where "},{" is inside an item: in a string, or between objects of a nested array', () => {
    assert.equal(pageLines([{ id: 1, text: 'a},{b' }, { id: 2 }]), undefined);
    assert.equal(pageLines([{ id: 1, rows: [{ a: 1 }, { b: 2 }] }]), undefined);
    assert.equal(pageLines([{ id: 1, deep: [[{}, {}]] }, { id: 2 }]), undefined);
    assert.equal(pageLines([]), undefined);
  });

  it('gives way for anything that is not plain data (toJSON, class instances, boxed values)', () => {
    class Thing {
      id = 1;
    }
    assert.equal(pageLines([new Thing() as unknown as Item]), undefined);
    assert.equal(pageLines([{ id: 1, toJSON: () => ({ id: 1 }) } as unknown as Item]), undefined);
    assert.equal(pageLines([new String('{"id":1}') as unknown as Item]), undefined);
    const proto = Object.prototype as { toJSON?: unknown };
    proto.toJSON = function (this: unknown) {
      return this;
    };
    try {
      assert.equal(pageLines([{ id: 1 }]), undefined);
    } finally {
      delete proto.toJSON;
    }
    const bare = Object.assign(Object.create(null), { id: 1, a: 'x' }) as Item;
    assert.deepEqual(viaPage([bare, { id: 2 }]), itemByItem([bare, { id: 2 }]));
  });

  it('a full read written page by page is byte for byte the file written item by item, pages that give way included', async () => {
    const dir = tempDir();
    const pages: Item[][] = [];
    let id = 0;
    // Pages of 50, and of 700 (serialised 250 items at a time, a part of which gives way).
    for (let page = 0; page < 30; page += 1) {
      const items: Item[] = [];
      for (let at = 0; at < (page % 10 === 9 ? 700 : 50); at += 1) {
        id += 1;
        const item: Item = { id, text: `t${id} é ${'x'.repeat(id % 7)}`, amount: id / 8, ok: id % 2 === 0 };
        if (id % 97 === 0) item.note = 'a},{b'; // this page gives way
        if (id % 131 === 0) item.rows = [{ a: 1 }, {}];
        items.push(item);
      }
      pages.push(items);
    }
    pages.splice(3, 0, []);
    const paged = await FullReadWriter.create(join(dir, 'paged.json'));
    for (const items of pages) await paged.add(items);
    const pagedDigest: FileDigest = await paged.commit();
    const single = await AtomicItemWriter.create(join(dir, 'single.json'));
    for (const item of pages.flat()) await single.write(item);
    const singleDigest = await single.commit();
    assert.deepEqual(pagedDigest, singleDigest);
    assert.equal(readFileSync(join(dir, 'paged.json'), 'utf8'), readFileSync(join(dir, 'single.json'), 'utf8'));
    assert.equal(JSON.parse(readFileSync(join(dir, 'paged.json'), 'utf8')).length, id);
  });
});

/** A response holding `items`, each spelt compact or not (`spell`), and the items JSON.parse reads from it. */
function response(items: readonly Item[], spell: (item: Item, index: number) => string) {
  const bytes = Buffer.from(
    `{"data":[${items.map(spell).join(',')}],"lastUpdatedDate":"2026-05-01T00:00:00.000Z","cursor":"c"}`,
  );
  return { bytes, items: (JSON.parse(bytes.toString('utf8')) as { data: Item[] }).data };
}

/** Spellings JSON.stringify never writes, of the same item. */
const SPELLINGS: Array<(item: Item) => string> = [
  (item) => JSON.stringify(item, null, 1),
  (item) => JSON.stringify(item).replace(/:/g, ': '),
  (item) => JSON.stringify(item).replace(/é/g, '\\u00e9').replace(/\//g, '\\/'),
  (item) => `{"id":0,${JSON.stringify(item).slice(1)}`, // "id" twice: the last one counts
];

describe('responseLines', () => {
  it('gives the bytes of serialisedLines, compact items taken as they stand in the response and the others serialised', () => {
    for (let variant = 0; variant < 16; variant += 1) {
      const page = response(HOSTILE, (item, index) =>
        (variant >> (index % 4)) % 2 === 1
          ? (SPELLINGS[index % SPELLINGS.length] ?? JSON.stringify)(item)
          : JSON.stringify(item),
      );
      const located = locateItems(page.bytes, page.items.length);
      assert.ok(located);
      assert.equal(
        responseLines(page.items, located).toString('utf8'),
        serialisedLines(page.items).toString('utf8'),
        `variant ${variant}`,
      );
      assert.equal(serialisedLines(page.items).toString('utf8'), itemByItem(page.items).lines);
    }
  });

  it('writes a compact page without serialising its items again', async () => {
    const items: Item[] = Array.from({ length: 500 }, (_, index) => ({
      id: index + 1,
      text: `t${index} é`,
      n: index / 4,
    }));
    const page = response(items, (item) => JSON.stringify(item));
    const dir = tempDir();
    const writer = await FullReadWriter.create(join(dir, 'data.json'));
    const stringify = JSON.stringify;
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      calls += 1;
      return stringify(...args);
    }) as typeof JSON.stringify;
    try {
      await writer.add(page.items, page.bytes);
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(calls, 0);
    await writer.commit();
    assert.equal(readFileSync(join(dir, 'data.json'), 'utf8'), `[\n${itemByItem(page.items).lines}\n]\n`);
  });

  it('a full read written from the responses is byte for byte the file written item by item', async () => {
    const dir = tempDir();
    const pages: Array<{ bytes: Buffer; items: Item[] }> = [];
    let id = 0;
    for (let page = 0; page < 12; page += 1) {
      const items: Item[] = [];
      for (let at = 0; at < 300; at += 1) {
        id += 1;
        items.push({ id, text: `t${id} é / "${'x'.repeat(id % 5)}"`, amount: id / 8, ok: id % 2 === 0, rows: [{}] });
      }
      // Pages spelt compact, then with one item that is not, then not compact at all.
      pages.push(
        response(items, (item, index) =>
          page % 3 === 0 || (page % 3 === 1 && index !== 7) ? JSON.stringify(item) : JSON.stringify(item, null, 2),
        ),
      );
    }
    pages.splice(
      2,
      0,
      response([], (item) => JSON.stringify(item)),
    );
    const fromBytes = await FullReadWriter.create(join(dir, 'bytes.json'));
    for (const page of pages) await fromBytes.add(page.items, page.bytes);
    const bytesDigest = await fromBytes.commit();
    const single = await AtomicItemWriter.create(join(dir, 'single.json'));
    for (const item of pages.flatMap((page) => page.items)) await single.write(item);
    assert.deepEqual(bytesDigest, await single.commit());
    assert.equal(readFileSync(join(dir, 'bytes.json'), 'utf8'), readFileSync(join(dir, 'single.json'), 'utf8'));
  });
});
