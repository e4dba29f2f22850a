/** The mock's paging helpers: cursor codec, dataset, limit and date parsing, one page. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CursorCodec, type CursorState } from '../../src/mock/cursor.js';
import { MockDataset } from '../../src/mock/dataset.js';
import { filterOf, listPage, matches, parseLimit, parseSince } from '../../src/mock/paging.js';

const state: CursorState = { dataset: '/expenses?type=PENDING', since: null, asOf: 1_700_000_000_000, lastId: 42 };

describe('CursorCodec', () => {
  it('round-trips every state it encodes', () => {
    const codec = new CursorCodec();
    for (const value of [state, { ...state, since: 1_699_999_999_000, lastId: -1 }, { ...state, dataset: '/x?a=%26' }])
      assert.deepEqual(codec.decode(codec.encode(value)), { ok: true, state: value });
  });

  const codec = new CursorCodec();
  const good = codec.encode(state);
  const [payload = '', mac = ''] = good.split('.');
  const refused: Array<[string, string]> = [
    ['empty', ''],
    ['no mac', payload],
    ['a short mac', `${payload}.${mac.slice(1)}`],
    ['a changed mac', `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`],
    ['an edited payload', `${Buffer.from(JSON.stringify(['/expenses', null, 1, 0])).toString('base64url')}.${mac}`],
    ['an extra segment', `${good}.x`],
    ['a cursor of another server', new CursorCodec().encode(state)],
  ];
  for (const [name, cursor] of refused)
    it(`refuses ${name}`, () => {
      const decoded = codec.decode(cursor);
      assert.equal(decoded.ok, false);
      assert.ok(!decoded.ok && decoded.reason.length > 0);
    });
});

const dataset = (count = 5) =>
  new MockDataset({ entity: 'expense', entityIndex: 5, count, firstId: 101, ctx: { seed: 1, now: 0 }, baseTime: 1000 });
const ids = (items: Iterable<{ id: number }>) => [...items].map((item) => item.id);

describe('MockDataset', () => {
  it('generates base items on read, the same for the same seed', () => {
    assert.deepEqual(ids(dataset().itemsAsOf(1000)), [101, 102, 103, 104, 105]);
    assert.deepEqual([...dataset().itemsAsOf(1000)], [...dataset().itemsAsOf(1000)]);
    assert.deepEqual(ids(dataset().itemsAsOf(1000, 103)), [104, 105], 'after an id');
  });

  it('creates, updates and deletes at an instant; a read as of an earlier time does not see them', () => {
    const data = dataset();
    const created = data.create(2000, { type: 'PENDING', amount: 1 });
    assert.equal(created.id, 106);
    data.update(2000, 101, { amount: 9 });
    assert.equal(data.delete(2000, 102), true);
    assert.equal(data.delete(2000, 999), false, 'no such id');
    assert.equal(data.update(2000, 999, {}), undefined);
    assert.deepEqual(ids(data.itemsAsOf(1500)), [103, 104, 105], 'changed items are left to the next incremental read');
    assert.deepEqual(ids(data.itemsAsOf(2000)), [101, 103, 104, 105, 106]);
    assert.equal(data.get(101)?.amount, 9);
    assert.equal(data.get(102), undefined);
    assert.equal(data.changeCount, 3);
  });

  it('changesBetween gives each changed id with its state at both ends', () => {
    const data = dataset();
    data.update(2000, 101, { amount: 1 });
    data.update(3000, 101, { amount: 2 });
    data.delete(3000, 103);
    data.update(4000, 104, { amount: 4 });
    const changes = data.changesBetween(1500, 3000);
    assert.deepEqual(changes.ids, [101, 103]);
    assert.equal(changes.before.get(101)?.amount === 1, false, 'before: the base item');
    assert.equal(changes.after.get(101)?.amount, 2);
    assert.equal(changes.after.get(103), null, 'deleted by the end');
    assert.equal(changes.after.has(104), false, 'changed after the interval');
    assert.deepEqual(data.changesBetween(3000, 4000).ids, [104]);
  });
});

describe('paging helpers', () => {
  const limits: Array<[string | undefined, number | string]> = [
    [undefined, 100],
    ['', 100],
    ['1', 1],
    [' 7 ', 7],
    ['1000', 1000],
    ['0', 'invalid_limit'],
    ['1001', 'invalid_limit'],
    ['-1', 'invalid_limit'],
    ['ten', 'invalid_limit'],
    ['1.5', 'invalid_limit'],
  ];
  for (const [header, expected] of limits)
    it(`limit ${JSON.stringify(header)} -> ${expected}`, () => {
      if (typeof expected === 'number') assert.equal(parseLimit(header), expected);
      else assert.throws(() => parseLimit(header), { details: { reason: expected, status: 400 } });
    });

  const dates: Array<[string | undefined, number | null | string]> = [
    [undefined, null],
    ['', null],
    ['2026-01-31T12:00:00.000Z', Date.UTC(2026, 0, 31, 12)],
    ['2026-01-31T14:00:00+02:00', Date.UTC(2026, 0, 31, 12)],
    ['yesterday', 'invalid_last_updated_date'],
    ['2026-01-31', 'invalid_last_updated_date'],
    ['2026-13-45T00:00:00Z', 'invalid_last_updated_date'],
    ['1700000000', 'invalid_last_updated_date'],
  ];
  for (const [header, expected] of dates)
    it(`lastUpdatedDate ${JSON.stringify(header)} -> ${expected}`, () => {
      if (typeof expected === 'string')
        assert.throws(() => parseSince(header), { details: { reason: expected, status: 400 } });
      else assert.equal(parseSince(header), expected);
    });

  it('a filter is sorted by name and only constrains fields an item has', () => {
    assert.deepEqual(filterOf(new URLSearchParams('type=PENDING&a=1')), [
      ['a', '1'],
      ['type', 'PENDING'],
    ]);
    assert.equal(matches({ id: 1, type: 'PENDING' }, [['type', 'PENDING']]), true);
    assert.equal(matches({ id: 1, type: 'BUSINESS' }, [['type', 'PENDING']]), false);
    assert.equal(matches({ id: 1 }, [['type', 'PENDING']]), true);
  });

  it('listPage: a cursor only when more pages remain (spec 4.3 rule 2)', () => {
    const data = dataset(5);
    const cursors = new CursorCodec();
    const fresh: CursorState = { dataset: 'k', since: null, asOf: 1000, lastId: Number.NEGATIVE_INFINITY };
    const page = (s: CursorState, firstPage: boolean, limit: number) =>
      listPage({ dataset: data, state: s, firstPage, filter: [], limit, cursors, deletedIdsOn: 'first' });
    const first = page(fresh, true, 2);
    assert.deepEqual(ids(first.data), [101, 102]);
    assert.equal(first.lastUpdatedDate, new Date(1000).toISOString());
    const decoded = cursors.decode(first.cursor ?? '');
    assert.ok(decoded.ok && decoded.state.lastId === 102);
    const exact = page(fresh, true, 5);
    assert.equal('cursor' in exact, false, 'exactly limit items left: no cursor');
  });

  it('listPage: deletedIds on the page chosen, only for items that left the filtered dataset', () => {
    const data = dataset(5);
    data.update(2000, 101, { type: 'PENDING' });
    data.update(2000, 102, { type: 'PENDING' });
    data.update(3000, 101, { type: 'BUSINESS' });
    data.delete(3000, 103);
    const cursors = new CursorCodec();
    const since: CursorState = { dataset: 'k', since: 2500, asOf: 3000, lastId: Number.NEGATIVE_INFINITY };
    const filter: Array<[string, string]> = [['type', 'PENDING']];
    for (const [on, firstPage, carries] of [
      ['first', true, true],
      ['first', false, false],
      ['last', true, true],
      ['every', false, true],
    ] as const) {
      const page = listPage({ dataset: data, state: since, firstPage, filter, limit: 10, cursors, deletedIdsOn: on });
      assert.deepEqual(page.data, [], 'nothing changed into the PENDING dataset');
      const before103 = dataset(5).get(103);
      const expected = before103?.type === 'PENDING' ? [101, 103] : [101];
      assert.deepEqual(page.deletedIds, carries ? expected : undefined, `${on} ${firstPage}`);
    }
  });
});
