/** check-consumer's pure parts: the comparison, the state document's shape, the command splitter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareDataset, describeDifference, isEqual, sameJson } from '../../src/consumer-check/compare-datasets.js';
import { splitCommand } from '../../src/consumer-check/split-command.js';
import { datasetParts, readConsumerState } from '../../src/consumer-check/state-document.js';
import { LedgerhookError } from '../../src/errors.js';

const service = [
  { id: 1, type: 'PENDING', amount: 10 },
  { id: 2, type: 'BUSINESS', amount: 20 },
  { id: 3, type: 'PENDING', amount: 30, tags: { a: [1, 2] } },
];

describe('compareDataset', () => {
  const cases: Array<{ name: string; consumer: any[] | undefined; expect: Record<string, unknown> }> = [
    { name: 'equal, in another order and key order', consumer: [...service].reverse(), expect: {} },
    {
      name: 'a subset of fields plus fields of its own: compared on the service fields it keeps',
      consumer: [
        { id: 1, amount: 10, syncedAt: 'x' },
        { id: 2, amount: 20 },
        { tags: { a: [1, 2] }, id: 3 },
      ],
      expect: {},
    },
    { name: 'ids as strings are the same ids', consumer: service.map((i) => ({ ...i, id: String(i.id) })), expect: {} },
    {
      name: 'missing, extra, different and duplicated, each named',
      consumer: [
        { id: 1, type: 'PENDING', amount: 11 },
        { id: 1, type: 'PENDING', amount: 10 },
        { id: 3, type: 'PENDING', amount: 30, tags: { a: [2, 1] } },
        { id: 'x9', type: 'PENDING' },
      ],
      expect: {
        missing: [2],
        extra: ['x9'],
        different: [
          { id: 1, fields: ['amount'] },
          { id: 3, fields: ['tags'] },
        ],
        duplicated: [1],
      },
    },
    {
      name: 'a number is not its string',
      consumer: [{ ...service[0], amount: '10' }, service[1], service[2]],
      expect: { different: [{ id: 1, fields: ['amount'] }] },
    },
    { name: 'absent: every item missing', consumer: undefined, expect: { absent: true, missing: [1, 2, 3] } },
  ];
  for (const { name, consumer, expect } of cases) {
    it(name, () => {
      const difference = compareDataset('/expenses', service, consumer);
      const want = { absent: false, missing: [], extra: [], different: [], duplicated: [], ...expect };
      assert.deepEqual(
        {
          absent: difference.absent,
          missing: difference.missing,
          extra: difference.extra,
          different: difference.different,
          duplicated: difference.duplicated,
        },
        want,
      );
      assert.equal(isEqual(difference), Object.keys(expect).length === 0);
    });
  }

  it('lists at most 20 ids of a kind but counts them all, and describes them on one line', () => {
    const many = Array.from({ length: 50 }, (_, index) => ({ id: index + 100 }));
    const difference = compareDataset('/expenses?type=PENDING', many, [{ id: 'line\nbreak\u009b' }]);
    assert.equal(difference.missing.length, 20);
    assert.equal(difference.counts.missing, 50);
    const line = describeDifference(difference);
    assert.equal(line, '/expenses?type=PENDING: 50 missing (100, 101, 102, …), 1 extra ("line\\nbreak\\u009b")');
    assert.ok(![...line].some((ch) => ch === '\n' || (ch.charCodeAt(0) >= 0x80 && ch.charCodeAt(0) <= 0x9f)));
  });

  it('sameJson: JSON equality, members in any order', () => {
    assert.ok(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }));
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: undefined }));
    assert.ok(!sameJson([1, 2], { 0: 1, 1: 2 }));
    assert.ok(!sameJson(null, {}));
  });
});

describe('readConsumerState (untrusted JSON)', () => {
  const read = (document: unknown) => readConsumerState(document, 'user_1', 'the test state');
  it('reads one user and ignores the others', () => {
    const datasets = read({ users: { user_1: { '/expenses': [{ id: 1 }] }, other: 'not even an object' } });
    assert.deepEqual([...datasets.keys()], ['/expenses']);
    assert.equal(read({ users: {} }).size, 0, 'a consumer with nothing yet');
    assert.equal(readConsumerState({ users: {} }, '__proto__', 'x').size, 0, 'never a lookup on the prototype');
  });
  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', [], /not a JSON object/],
    ['no users', { user_1: {} }, /"users" is missing/],
    ['a user that is not an object', { users: { user_1: [] } }, /users\["user_1"\] is not an object/],
    ['a key that is not a path', { users: { user_1: { expenses: [] } } }, /"expenses"\]: a dataset key is a path/],
    ['items not an array', { users: { user_1: { '/expenses': {} } } }, /is not an array/],
    ['an item without id', { users: { user_1: { '/expenses': [{ id: 1 }, { amount: 2 }] } } }, /\[1\] has no id/],
    ['an item that is null', { users: { user_1: { '/expenses': [null] } } }, /\[0\] is not an object/],
    ['an id that is an object', { users: { user_1: { '/expenses': [{ id: {} }] } } }, /has no id/],
  ];
  for (const [name, document, message] of bad) {
    it(`refuses ${name}, in one line that names the place`, () => {
      assert.throws(
        () => read(document),
        (error: unknown) =>
          error instanceof LedgerhookError &&
          error.details.reason === 'consumer_state_invalid' &&
          message.test(error.message) &&
          !error.message.includes('\n'),
      );
    });
  }
  it('escapes a hostile key in the message', () => {
    assert.throws(
      () => read({ users: { user_1: { '\u001b[31mred\n': [] } } }),
      (error: Error) =>
        ![...error.message].some((ch) => ch.charCodeAt(0) < 0x20) && error.message.includes('\\u001b[31mred\\n'),
    );
  });
  it('datasetParts splits a key by hand', () => {
    assert.deepEqual(datasetParts('/expenses?type=PENDING'), { path: '/expenses', filter: { type: 'PENDING' } });
    assert.deepEqual(datasetParts('//evil.example/expenses'), { path: '//evil.example/expenses', filter: {} });
  });
});

describe('splitCommand (no shell)', () => {
  const ok: Array<[string, string[]]> = [
    ['node print-state.js', ['node', 'print-state.js']],
    ['  node   "a b"  \'c "d"\'', ['node', 'a b', 'c "d"']],
    ['node "say \\"hi\\"" back\\ slash', ['node', 'say "hi"', 'back slash']],
    ["sh -c 'cat state.json | jq .'", ['sh', '-c', 'cat state.json | jq .']],
    ['node ""', ['node', '']],
  ];
  for (const [text, argv] of ok) it(`splits ${text}`, () => assert.deepEqual(splitCommand(text), argv));
  const refused: Array<[string, RegExp]> = [
    ['cat state.json | jq .', /without a shell, so "\|"/],
    ['node x > out', /">"/],
    ['echo $HOME', /"\$"/],
    ['echo "$HOME"', /inside double quotes/],
    ['cat ~/state.json', /"~"/],
    ['cat *.json', /"\*"/],
    ["node 'open", /never closed/],
    ['   ', /empty/],
    ['a\nb', /line break/],
  ];
  for (const [text, message] of refused)
    it(`refuses ${JSON.stringify(text)}`, () =>
      assert.throws(
        () => splitCommand(text),
        (error: unknown) =>
          error instanceof LedgerhookError &&
          error.details.reason === 'invalid_state_source' &&
          message.test(error.message),
      ));
});
