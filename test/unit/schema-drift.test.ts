import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SCHEMA_FIELDS, schemaFrom } from '../../src/store/dataset-schema.js';
import { describeDrift, isDrift, SchemaObserver, settleSchema, storableName } from '../../src/sync/schema-drift.js';

const observe = (...pages: Array<Array<Record<string, unknown>>>) => {
  const observer = new SchemaObserver();
  for (const page of pages) observer.observe(page);
  return observer;
};

describe('schema drift', () => {
  it('records every top-level field with its sorted JSON types, nothing reported the first time', () => {
    const observer = observe(
      [{ id: 1, amount: 5, note: 'x', tags: [], meta: {}, paid: true }],
      [{ id: 2, amount: null, note: 'y' }],
    );
    const { schema, drift } = settleSchema(undefined, observer, true);
    assert.equal(drift, undefined);
    assert.deepEqual(schema, {
      amount: ['null', 'number'],
      id: ['number'],
      meta: ['object'],
      note: ['string'],
      paid: ['boolean'],
      tags: ['array'],
    });
  });

  const stored = { id: ['number'], amount: ['number'], note: ['string'] };
  const cases: Array<{
    name: string;
    items: Array<Record<string, unknown>>;
    complete: boolean;
    added?: string[];
    missing?: string[];
    changed?: Array<{ field: string; was: string[]; now: string[] }>;
    schema: Record<string, string[]>;
  }> = [
    {
      name: 'the same fields and types: no drift',
      items: [{ id: 1, amount: 2, note: 'a' }],
      complete: true,
      schema: stored,
    },
    {
      name: 'a new field',
      items: [{ id: 1, amount: 2, note: 'a', approvedBy: 'bo' }],
      complete: false,
      added: ['approvedBy'],
      schema: { ...stored, approvedBy: ['string'] },
    },
    {
      name: 'a type added to a field (the union is kept)',
      items: [{ id: 1, amount: '2.50', note: 'a' }],
      complete: true,
      changed: [{ field: 'amount', was: ['number'], now: ['number', 'string'] }],
      schema: { ...stored, amount: ['number', 'string'] },
    },
    {
      name: 'null where a field was never null is a change',
      items: [{ id: 1, amount: 2, note: null }],
      complete: false,
      changed: [{ field: 'note', was: ['string'], now: ['null', 'string'] }],
      schema: { ...stored, note: ['null', 'string'] },
    },
    {
      name: 'a field in no item of an incremental run is not missing (too few items to tell)',
      items: [{ id: 1, amount: 2 }],
      complete: false,
      schema: stored,
    },
    {
      name: 'a field in no item of a full read is missing, and forgotten',
      items: [
        { id: 1, amount: 2 },
        { id: 2, amount: 3 },
      ],
      complete: true,
      missing: ['note'],
      schema: { id: ['number'], amount: ['number'] },
    },
  ];
  for (const entry of cases)
    it(entry.name, () => {
      const { schema, drift } = settleSchema(stored, observe(entry.items), entry.complete);
      assert.deepEqual(schema, entry.schema);
      const expected =
        entry.added || entry.missing || entry.changed
          ? { added: entry.added ?? [], missing: entry.missing ?? [], changed: entry.changed ?? [] }
          : undefined;
      assert.deepEqual(drift && { added: drift.added, missing: drift.missing, changed: drift.changed }, expected);
    });

  it('sees every type of every field, whichever place each item lists it in', () => {
    const long = 'x'.repeat(300);
    const observer = observe(
      [
        { id: 1, a: 1, b: 'x' },
        { id: 2, a: 'one', b: 'y' },
        { b: 1, id: 3, a: null },
      ],
      [
        { id: 4, [long]: 1 },
        { id: 5, [long]: 'one' },
        { a: [], id: 6 },
        { a: {}, id: 7, b: true },
      ],
    );
    const { schema } = settleSchema(undefined, observer, true);
    assert.deepEqual(schema, {
      a: ['array', 'null', 'number', 'object', 'string'],
      b: ['boolean', 'number', 'string'],
      id: ['number'],
      [storableName(long)]: ['number', 'string'],
    });
  });

  it('reports a drift once: the next run against the committed schema sees none', () => {
    const items = [{ id: 1, amount: 'x', extra: true }];
    const first = settleSchema(stored, observe(items), true);
    assert.ok(isDrift(first.drift));
    assert.deepEqual(settleSchema(first.schema, observe(items), true).drift, undefined);
  });

  it('learns nothing from a run without items (an empty full read calls nothing missing)', () => {
    assert.deepEqual(settleSchema(stored, observe([]), true), { schema: stored, drift: undefined });
    assert.deepEqual(settleSchema(undefined, observe(), true), { schema: undefined, drift: undefined });
  });

  it('keeps at most MAX_SCHEMA_FIELDS fields, says so once, and calls nothing missing after overflowing', () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_SCHEMA_FIELDS + 20 }, (_, i) => [`f${i}`, i]));
    const first = settleSchema(stored, observe([wide]), true);
    assert.equal(Object.keys(first.schema ?? {}).length, MAX_SCHEMA_FIELDS);
    assert.equal(first.drift?.tooManyFields, true);
    assert.deepEqual(first.drift?.missing, [], 'an overflowing read cannot tell what is missing');
    const again = settleSchema(first.schema, observe([{ ...wide, more: 1 }]), true);
    assert.equal(again.drift?.tooManyFields, undefined, 'said once');
    assert.equal(Object.keys(again.schema ?? {}).length, MAX_SCHEMA_FIELDS);
  });

  it('remembers hostile names safely: __proto__ stays a field, long or NUL names by a bounded stand-in', () => {
    const item = JSON.parse('{"id":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const long = 'x'.repeat(10_000);
    const { schema } = settleSchema(undefined, observe([item, { id: 2, [long]: 1, 'a\u0000b': 2, '\ud800': 3 }]), true);
    assert.deepEqual(Object.getOwnPropertyDescriptor(schema, '__proto__')?.value, ['object']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const names = Object.keys(schema ?? {});
    assert.ok(names.every((name) => name.length < 100 && !name.includes('\u0000')));
    assert.equal(storableName(long), storableName(long), 'the same stand-in every time');
    assert.notEqual(storableName(`${long}y`), storableName(long));
    assert.equal(storableName('approvedBy'), 'approvedBy');
    assert.equal(storableName('😀'), '😀', 'a surrogate pair is fine');
  });

  it('describes a drift in one escaped line, bounded', () => {
    const { drift } = settleSchema(stored, observe([{ id: 1, amount: 'x', note: 'n', 'a\u001b[31mb': 1 }]), false);
    assert.ok(drift);
    const line = describeDrift(drift);
    assert.equal(line, 'new field "a\\u001b[31mb" (number); "amount" was number, now number|string');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
    assert.doesNotMatch(line, /[\u0000-\u001f\u202e]/);
    assert.match(describeDrift({ ...drift, added: ['\u202eevil'], addedTypes: {} }), /\\u202e/);
    const many = settleSchema(
      stored,
      observe([Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}`, 1]))]),
      false,
    );
    assert.match(describeDrift(many.drift!), /; and 20 more$/);
  });

  it('reads a stored schema leniently: anything malformed is none, never an error', () => {
    assert.deepEqual(schemaFrom({ a: ['string', 'null'] }), { a: ['null', 'string'] });
    for (const bad of [null, [], 'x', { a: 'string' }, { a: [] }, { a: ['date'] }, { a: [1] }])
      assert.equal(schemaFrom(bad), undefined, JSON.stringify(bad));
  });
});
