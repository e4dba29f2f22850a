/**
 * A list page's items found in the bytes of its response (item-bytes.ts), each judged compact
 * (compact-json.ts) only where JSON.stringify writes exactly those bytes for the item JSON.parse
 * reads from them: hostile spellings, the envelope in any order and spacing, and a seeded fuzz.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locateItems, trailingCursor } from '../../src/dataset/item-bytes.js';
import { seededRandom } from '../../src/mock/random.js';

const STAMP = '"lastUpdatedDate":"2026-05-01T00:00:00.000Z"';
const page = (items: string, extra = '') => `{"data":[${items}],${STAMP}${extra}}`;

/**
 * Locates the items of `text` and checks each: its bytes parse to the item, and where they are
 * judged compact they are JSON.stringify's of it. Returns, per item, whether it was judged compact.
 */
function judged(text: string): boolean[] {
  const bytes = Buffer.from(text);
  const items = (JSON.parse(text) as { data: unknown[] }).data;
  const found = locateItems(bytes, items.length);
  assert.ok(found, `not located: ${text}`);
  assert.equal(found.count, items.length);
  return items.map((item, index) => {
    const own = bytes.subarray(found.start(index), found.end(index)).toString('utf8');
    assert.deepEqual(JSON.parse(own), item, `item ${index} of ${text}`);
    if (found.isCompact(index)) assert.equal(own, JSON.stringify(item), `item ${index} judged compact: ${own}`);
    return found.isCompact(index);
  });
}

const compact = (item: string) => judged(page(item))[0];

describe('locateItems: each item of a page in its bytes, compact where JSON.stringify writes the same', () => {
  it('finds compact what JSON.stringify writes: strings with every short escape, unicode, nesting, literals', () => {
    const items: unknown[] = [
      { id: 1, type: 'PENDING', amount: 2089.16, categoryId: 8, description: 'SHELL #832' },
      { id: 'abc', text: 'quote " backslash \\ newline \n tab \t cr \r bs \b ff \f nul \u0000 us \u001f' },
      { id: 2, text: 'é € 😀 \u2028 \u2029 \u007f', 'clé é': 'ünïcode key' },
      { id: 3, nested: { a: { b: [1, -2, 0.5, -0.5, { c: null }] } }, list: [], empty: {}, t: true, f: false },
      { id: 4, '': 'empty key', __proto__key: 1, toJSON: 'a string', '-1': 'not an index' },
      { id: 5, n: [0, -1, 123456789012345, 0.000001, 1.5, 100, 1e14, 12.25] },
      { id: 6, a: { k: 1 }, k: 2, b: { k: 3, a: { k: 4 } } },
    ];
    const text = page(items.map((item) => JSON.stringify(item)).join(','));
    assert.deepEqual(
      judged(text),
      items.map(() => true),
    );
  });

  it('judges not compact what JSON.stringify would write otherwise: whitespace, other escapes, number forms', () => {
    const spellings = [
      '{"id": 1}',
      '{ "id":1}',
      '{"id":1 }',
      '{"id":1,"a":[1, 2]}',
      '{"id":1,"a":"\\/"}',
      '{"id":1,"a":"\\u0041"}',
      '{"id":1,"a":"\\u001F"}',
      '{"id":1,"a":"\\u000a"}',
      '{"id":1,"a":"\\u0020"}',
      '{"id":1,"a":"\\ud83d\\ude00"}',
      '{"id":1,"\\u0061":2}',
      '{"id":1.0}',
      '{"id":1,"n":1.50}',
      '{"id":1,"n":-0}',
      '{"id":1,"n":-0.0}',
      '{"id":1,"n":1e3}',
      '{"id":1,"n":1E3}',
      '{"id":1,"n":1.5e-7}',
      '{"id":1,"n":0.0000001}',
      '{"id":1,"n":1234567890123456}',
      '{"id":9007199254740993}',
      '{"id":1,"n":0.1234567890123456}',
      '{"id":1,"n":1e21}',
      '{"id":1,"n":100000000000000000000}', // what JSON.stringify writes for 1e20, past the 15 digits judged
    ];
    for (const spelling of spellings) assert.equal(compact(spelling), false, spelling);
  });

  it('judges not compact an object with a key twice (JSON.parse keeps the last value) or an integer key (listed first)', () => {
    for (const spelling of [
      '{"id":1,"a":1,"a":2}',
      '{"id":1,"id":2}',
      '{"id":1,"o":{"x":1,"y":[{"x":1}],"x":2}}',
      '{"id":1,"a\\"b":1,"a\\"b":2}',
      '{"b":1,"1":2,"id":3}',
      '{"id":1,"o":{"10":"x"}}',
    ])
      assert.equal(compact(spelling), false, spelling);
    // The same key in two objects is no repeat, nor are keys that differ only in their escapes' bytes.
    for (const spelling of ['{"id":1,"o":{"id":2},"p":{"id":3}}', '{"id":1,"a\\nb":1,"a\\tb":2}'])
      assert.equal(compact(spelling), true, spelling);
  });

  it('finds every item however the envelope is laid out, and judges each item alone', () => {
    const items = ['{"id":1}', '{"id": 2}', '{"id":3,"a":[{"b":"]},{["}]}'];
    const layouts = [
      page(items.join(',')),
      `{${STAMP},"cursor":"]}{[\\"\\\\","data":[${items.join(',')}],"deletedIds":[1,"2"],"x":{"data":[]}}`,
      `\n{ "data" : [ ${items.join(' ,\n ')} ] , ${STAMP} }\n`,
      `{"data":[${items.join(',')}],"data2":[],${STAMP}}`,
    ];
    for (const text of layouts) assert.deepEqual(judged(text), [true, false, true], text);
    assert.deepEqual(judged(page('')), []);
    assert.deepEqual(judged(JSON.stringify({ data: [{ id: 1, a: [1] }], lastUpdatedDate: 'x' }, null, 2)), [false]);
  });

  it('tells nothing where it cannot be sure which bytes JSON.parse read the items from', () => {
    const none = (text: string | Buffer, count: number) =>
      assert.equal(locateItems(Buffer.from(text), count), undefined, String(text));
    none(page('{"id":1}'), 2); // another number of items
    none(page('{"id":1},{"id":2}'), 1);
    none(`{"data":[{"id":1}],"data":[{"id":2}],${STAMP}}`, 1); // which one JSON.parse kept
    none(`{"d\\u0061ta":[{"id":1}],${STAMP}}`, 1); // an envelope key spelt with an escape
    none(`{"x\\"":1,"data":[{"id":1}],${STAMP}}`, 1);
    none(`{${STAMP}}`, 0); // no data
    none('[{"id":1}]', 1);
    none(`{"data":{"id":1},${STAMP}}`, 1);
    // Bytes that are not UTF-8: the text JSON.parse read had U+FFFD where they are.
    none(
      Buffer.concat([Buffer.from('{"data":[{"id":1,"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from(`"}],${STAMP}}`)]),
      1,
    );
  });

  it('gives up on deeper nesting than it follows, and still finds the items around it', () => {
    const deep = `{"id":2,"d":${'['.repeat(600)}${']'.repeat(600)}}`;
    assert.deepEqual(judged(page(`{"id":1},${deep},{"id":3}`)), [true, false, true]);
  });
});

describe('trailingCursor: the cursor an envelope ends with, read from its end, or nothing', () => {
  it('reads it where the envelope ends with simple strings, as JSON.parse keeps it (the last of its name)', () => {
    const cases: Array<[string, string | undefined]> = [
      [`{"data":[],${STAMP},"cursor":"abc"}`, 'abc'],
      [`{"data":[],"cursor":"abc",${STAMP}}`, 'abc'],
      ['{"data":[],"cursor":"first","cursor":"second"}', 'second'],
      ['  { "data" : [ ] , "cursor" : "spaced" }\n', 'spaced'],
      ['{"cursor":"only"}', 'only'],
    ];
    for (const [text, cursor] of cases) {
      assert.equal(trailingCursor(Buffer.from(text)), cursor, text);
      assert.equal((JSON.parse(text) as { cursor: string }).cursor, cursor, text);
    }
  });

  it('gives nothing for anything else: another value at the end, an escape, null or "", a cursor inside an item', () => {
    for (const text of [
      '{"data":[],"cursor":"abc","deletedIds":[1]}',
      '{"data":[],"cursor":"abc","n":1}',
      '{"data":[],"cursor":null}',
      '{"data":[],"cursor":""}',
      `{"data":[{"cursor":"x"}],${STAMP}}`,
      '{"data":[],"cursor":"a\\"b"}',
      '{"data":[],"c\\u0075rsor":"ab"}',
      '{"data":[],"x":"a\\",\\"cursor\\":\\"evil"}',
      '{"data":[],"x":{"cursor":"nested"}}',
      '[{"cursor":"x"}]',
      'not json',
      '',
    ])
      assert.equal(trailingCursor(Buffer.from(text)), undefined, text);
  });
});

describe('locateItems, fuzzed: what it judges compact is always what JSON.stringify writes', () => {
  const next = seededRandom(23);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const CHARS = [
    'a',
    'Z',
    '0',
    '9',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\u0001',
    '\u001f',
    'é',
    '€',
    '😀',
    '\u2028',
    '{',
    '}',
    ',',
  ];

  /** A number spelt one of the ways JSON allows, some of which JSON.stringify never writes. */
  function numberText(): string {
    const digits = () => String(Math.floor(next() * 10 ** (1 + Math.floor(next() * (next() < 0.2 ? 17 : 7)))));
    const int = pick(['0', digits(), digits()]);
    const zeros = next() < 0.2 ? '0'.repeat(Math.floor(next() * 8)) : '';
    const fraction = next() < 0.5 ? '' : `.${zeros}${digits()}${next() < 0.1 ? '0' : ''}`;
    const exponent = next() < 0.1 ? `${pick(['e', 'E'])}${pick(['', '+', '-'])}${Math.floor(next() * 25)}` : '';
    return `${next() < 0.3 ? '-' : ''}${int}${fraction}${exponent}`;
  }

  /** A string spelt with some characters escaped as JSON.stringify would, or as \u, or \/. */
  function stringText(): string {
    let text = '';
    for (let count = Math.floor(next() * 6); count > 0; count -= 1) {
      const char = pick(CHARS);
      const escaped = JSON.stringify(char).slice(1, -1);
      const roll = next();
      if (roll < 0.1) text += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
      else if (roll < 0.15) text += `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      else if (roll < 0.2 && char === '/') text += '\\/';
      else text += escaped;
    }
    return `"${text}"`;
  }

  function valueText(depth: number): string {
    const roll = next();
    if (depth < 3 && roll < 0.15) return objectText(depth + 1, false);
    if (depth < 3 && roll < 0.25)
      return `[${Array.from({ length: Math.floor(next() * 3) }, () => valueText(depth + 1)).join(pick([',', ', ']))}]`;
    if (roll < 0.55) return stringText();
    if (roll < 0.9) return numberText();
    return pick(['true', 'false', 'null']);
  }

  function objectText(depth: number, item: boolean): string {
    const keys = item ? ['"id"'] : [];
    for (let count = Math.floor(next() * 5); count > 0; count -= 1)
      keys.push(
        next() < 0.05 ? `"${Math.floor(next() * 20)}"` : next() < 0.15 && keys.length > 0 ? pick(keys) : stringText(),
      );
    const members = keys.map(
      (key, index) => `${key}${next() < 0.05 ? ': ' : ':'}${index === 0 && item ? numberText() : valueText(depth)}`,
    );
    return `{${members.join(next() < 0.05 ? ' ,' : ',')}}`;
  }

  it('over thousands of items spelt at random, most of them compact', () => {
    let items = 0;
    let compactItems = 0;
    for (let round = 0; round < 300; round += 1) {
      const texts = Array.from({ length: 1 + Math.floor(next() * 20) }, () => {
        // Half the items as JSON.stringify writes them (what a service usually sends), half spelt at random.
        const text = objectText(0, true);
        return next() < 0.5 ? JSON.stringify(JSON.parse(text)) : text;
      });
      const verdicts = judged(page(texts.join(',')));
      items += verdicts.length;
      compactItems += verdicts.filter(Boolean).length;
    }
    assert.ok(items > 2000, `${items} items`);
    assert.ok(compactItems > items / 3 && compactItems < (items * 2) / 3, `${compactItems} of ${items} compact`);
  });

  it('numbers: judged compact only when Number.prototype.toString writes the same', () => {
    let accepted = 0;
    for (let round = 0; round < 20_000; round += 1) {
      const text = numberText();
      const verdict = compact(`{"id":1,"n":${text}}`);
      if (verdict) accepted += 1;
      // A plain number of at most 15 digits, no exponent, no trailing zero: always compact.
      if (/^-?(0|[1-9]\d{0,14})(\.\d*[1-9])?$/.test(text) && text.replace(/\D/g, '').length <= 15) {
        const value = Number(text);
        if (!Object.is(value, -0) && (Math.abs(value) >= 1e-6 || value === 0)) assert.equal(verdict, true, text);
      }
    }
    assert.ok(accepted > 5000, `${accepted} accepted`);
  });
});
