import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveFilter } from '../../src/cli/resolve-dataset.js';
import { classifyBody } from '../../src/dataset/envelope.js';
import { compareIds, idKey } from '../../src/dataset/item-id.js';
import { parseRetryAfter } from '../../src/http/retry-policy.js';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');

describe('resolveFilter', () => {
  const ok: Array<[string, { type?: string; filter?: string[] }, Record<string, string>]> = [
    ['nothing', {}, {}],
    ['--type', { type: 'PENDING' }, { type: 'PENDING' }],
    ['--filter', { filter: ['x=1', 'y=a=b'] }, { x: '1', y: 'a=b' }],
    ['--filter with an empty value', { filter: ['x='] }, { x: '' }],
    ['--type and the same --filter type', { type: 'P', filter: ['type=P'] }, { type: 'P' }],
    ['--filter type=PENDING.x=1 stays one value', { filter: ['type=PENDING.x=1'] }, { type: 'PENDING.x=1' }],
  ];
  for (const [name, flags, expected] of ok)
    it(`accepts ${name}`, () => assert.deepEqual(resolveFilter(flags), expected));
  const bad: Array<[string, { type?: string; filter?: string[] }, RegExp]> = [
    ['a filter without =', { filter: ['x'] }, /key=value/],
    ['a filter with an empty key', { filter: ['=1'] }, /key=value/],
    ['an empty --type', { type: ' ' }, /empty/],
    ['--type and --filter type disagreeing', { type: 'A', filter: ['type=B'] }, /disagree/],
  ];
  for (const [name, flags, pattern] of bad)
    it(`refuses ${name}`, () => assert.throws(() => resolveFilter(flags), { code: 'ERR_USAGE', message: pattern }));
});

describe('parseRetryAfter', () => {
  const cases: Array<[string | undefined, number | undefined]> = [
    [undefined, undefined],
    ['', undefined],
    ['  ', undefined],
    ['0', 0],
    ['5', 5000],
    [' 12 ', 12_000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
  ];
  for (const [value, expected] of cases)
    it(`${JSON.stringify(value)} → ${expected}`, () => assert.equal(parseRetryAfter(value, NOW), expected));
});

describe('classifyBody', () => {
  const page = { data: [{ id: 1 }], lastUpdatedDate: '2026-01-01T00:00:00.000Z' };
  const cases: Array<[string, unknown, 'page' | 'document' | 'invalid', RegExp?]> = [
    ['an envelope', page, 'page'],
    ['an envelope with cursor and deletedIds', { ...page, cursor: 'c', deletedIds: [1, '2'] }, 'page'],
    ['string ids', { ...page, data: [{ id: 'a' }] }, 'page'],
    ['a settings object', { filingStatus: 'single' }, 'document'],
    ['an array', [1, 2], 'document'],
    ['null', null, 'document'],
    ['data not an array', { ...page, data: {} }, 'invalid', /data is not an array/],
    ['no lastUpdatedDate', { data: [] }, 'invalid', /missing/],
    ['a bad lastUpdatedDate', { ...page, lastUpdatedDate: 'yesterday' }, 'invalid', /not a timestamp/],
    // A serialiser's habit on the last page: ends the read, recorded as a quirk.
    ['an empty cursor', { ...page, cursor: '' }, 'page'],
    ['a null cursor', { ...page, cursor: null }, 'page'],
    ['a numeric cursor', { ...page, cursor: 5 }, 'invalid', /cursor/],
    ['deletedIds not an array', { ...page, deletedIds: 3 }, 'invalid', /deletedIds/],
    ['deletedIds with objects', { ...page, deletedIds: [{}] }, 'invalid', /deletedIds/],
    ['an item without id', { ...page, data: [{ id: 1 }, { x: 1 }] }, 'invalid', /data\[1\] has no id/],
    ['a null item', { ...page, data: [null] }, 'invalid', /data\[0\]/],
    // Ids as the server wrote them (item-id.ts): what JSON.parse cannot keep, or two items read as one.
    [
      'an id beyond 2^53',
      { ...page, data: [{ id: 2 ** 53 }] },
      'invalid',
      /data\[0\] has the id 9007199254740992, a number/,
    ],
    ['the largest exact id', { ...page, data: [{ id: 2 ** 53 - 1 }, { id: -(2 ** 53 - 1) }] }, 'page'],
    ['an id -0', { ...page, data: [{ id: 1 }, { id: -0 }] }, 'invalid', /data\[1\] has the id -0/],
    ['a fraction as id', { ...page, data: [{ id: 1.5 }] }, 'invalid', /has the id 1\.5/],
    ['deletedIds beyond 2^53', { ...page, deletedIds: [1, 2 ** 53 + 2] }, 'invalid', /deletedIds\[1\] has the id/],
    ['1 and "1" in data', { ...page, data: [{ id: 1 }, { id: 'a' }, { id: '1' }] }, 'invalid', /the ids 1 and "1"/],
    ['"-0" and 0 in data', { ...page, data: [{ id: '-0' }, { id: 0 }] }, 'invalid', /the ids "-0" and 0/],
    ['an id twice, spelt alike', { ...page, data: [{ id: 'a' }, { id: 'a' }, { id: 1 }, { id: 1 }] }, 'page'],
    ['deletedIds naming one item two ways', { ...page, data: [{ id: 7 }], deletedIds: [7, '7', 8, '8'] }, 'page'],
  ];
  for (const [name, body, kind, reason] of cases)
    it(`${name} → ${kind}`, () => {
      const result = classifyBody(body);
      assert.equal(result.kind, kind, JSON.stringify(result));
      if (reason && result.kind === 'invalid') assert.match(result.reason, reason);
      if (result.kind === 'invalid' && /id/.test(name) && !/without id/.test(name))
        assert.ok(result.code === 'id_not_exact' || result.code === 'id_collision');
    });
});

describe('ids: 7 and "7" are one id', () => {
  const same: Array<[number | string, number | string]> = [
    [7, '7'],
    ['7', 7],
    [0, '0'],
    [-3, '-3'],
  ];
  for (const [a, b] of same)
    it(`${JSON.stringify(a)} = ${JSON.stringify(b)}`, () => {
      assert.equal(compareIds(a, b), 0);
      assert.equal(idKey(a), idKey(b));
    });
  const different: Array<[number | string, number | string]> = [
    [7, '07'],
    [7, '7.0'],
    [7, 'a'],
    ['a', 'b'],
    [1, 2],
  ];
  for (const [a, b] of different)
    it(`${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`, () => {
      assert.notEqual(compareIds(a, b), 0);
      assert.notEqual(idKey(a), idKey(b));
    });
  it('sorts numbers (and numeric strings) numerically, before other strings', () => {
    assert.deepEqual([10, 'b', '9', 2, 'a'].sort(compareIds), [2, '9', 10, 'a', 'b']);
  });
});
