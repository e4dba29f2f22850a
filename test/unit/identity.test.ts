import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  datasetFileName,
  datasetKey,
  jobId,
  stateKey,
  tokenFingerprint,
  userDirName,
} from '../../src/store/identity.js';

describe('identity (one encoding for directory, state key and job id)', () => {
  it('userDirName percent-encodes every byte outside [A-Za-z0-9_-], and says where its capitals are', () => {
    for (const [userId, expected] of [
      ['alice', 'alice'],
      ['a_b', 'a_b'],
      ['a/b', 'a%2Fb'],
      ['a.b', 'a%2Eb'],
      ['_', '_'],
      ['...', '%2E%2E%2E'],
      ['a b', 'a%20b'],
      ['%2F', '%252F@4'],
      ['Alice', 'Alice@0'],
      ['ALICE', 'ALICE@0-4'],
      ['aLiCe', 'aLiCe@1,3'],
      ['user_7F3C', 'user_7F3C@6,8'],
      ['a@0', 'a%400'],
      ['con', '%63on'],
      ['Nul', '%4Eul'],
      ['\u0000', '%00'],
      ['顧客', '%E9%A1%A7%E5%AE%A2'],
      ['ユーザー', '%E3%83%A6%E3%83%BC%E3%82%B6%E3%83%BC'],
    ] as const)
      assert.equal(userDirName(userId), expected, userId);
  });

  it('userDirName gives distinct ids distinct names (no two ids collide)', () => {
    const ids = ['a/b', 'a_b', '', '_', '顧客', 'ユーザー', '??', '?', 'A', 'a', '%41'].filter((id) => id !== '');
    const names = ids.map(userDirName);
    assert.equal(new Set(names).size, ids.length);
  });

  it("userDirName refuses '', '.', '..' and ids too long for a file name", () => {
    for (const userId of ['', '.', '..', 'x'.repeat(201), '顧'.repeat(30)])
      assert.throws(
        () => userDirName(userId),
        (error: { code?: string; details?: { reason?: string } }) =>
          error.code === 'ERR_USAGE' && error.details?.reason === 'bad_user_id',
      );
  });

  it('datasetKey is the path plus the filter sorted by key', () => {
    for (const [path, filter, expected] of [
      ['/expenses', {}, '/expenses'],
      ['expenses', {}, '/expenses'],
      ['/expenses', { type: 'PENDING' }, '/expenses?type=PENDING'],
      ['/expenses', { x: '1', type: 'PENDING' }, '/expenses?type=PENDING&x=1'],
      ['/expenses', { type: 'PENDING.x=1' }, '/expenses?type=PENDING.x%3D1'],
      ['/expenses', { 'a=b': 'c' }, '/expenses?a%3Db=c'],
    ] as const)
      assert.equal(datasetKey(path, filter), expected);
  });

  it('datasetFileName is unique per dataset key (--type and --filter never collide)', () => {
    const keys = [
      datasetKey('/expenses', { type: 'PENDING', x: '1' }),
      datasetKey('/expenses', { type: 'PENDING.x=1' }),
      datasetKey('/expenses/expenses'),
      datasetKey('/expenses.expenses'),
      datasetKey('/expenses', { type: 'a b' }),
      datasetKey('/expenses', { type: 'a+b' }),
      datasetKey('/expenses', { 'expenses.type': 'x' }),
      datasetKey('/expenses/type=x'),
      datasetKey('/x', { long: 'v'.repeat(400) }),
      datasetKey('/x', { long: `${'v'.repeat(399)}w` }),
    ];
    const names = keys.map(datasetFileName);
    assert.equal(new Set(names).size, keys.length, names.join('\n'));
    for (const name of names) {
      assert.ok(name.endsWith('.json'));
      assert.ok(name.length < 200, name);
      assert.doesNotMatch(name, /[/\\]/);
    }
  });

  it('datasetFileName is readable: segments and filter pairs joined by dots', () => {
    for (const [key, name] of [
      ['/expenses', 'expenses.json'],
      ['/expenses?type=pending', 'expenses.type=pending.json'],
      ['/expenses?type=PENDING', 'expenses.type=PENDING@14-20.json'],
      ['/expenses/categories', 'expenses.categories.json'],
      ['/bankAccounts', 'bankAccounts@4.json'],
      ['/expenses?type=a+b&x=1.2', 'expenses.type=a%20b.x=1%2E2.json'],
      ['/', '+.json'],
      ['/con', '%63on.json'],
    ] as const)
      assert.equal(datasetFileName(key), name, key);
  });

  it('names differing only in case never meet, even folded by a case-insensitive file system', () => {
    /** Every case variant of `text`'s letters (up to 2^6 of them). */
    const variants = (text: string): string[] => {
      let out = [''];
      for (const char of text) {
        const both = char.toLowerCase() === char.toUpperCase() ? [char] : [char.toLowerCase(), char.toUpperCase()];
        out = out.flatMap((prefix) => both.map((next) => prefix + next)).slice(0, 64);
      }
      return out;
    };
    const users = ['alice', 'a.lI', 'con', 'x%41y', 'ß-é', 'u_7f3c', `${'ab'.repeat(90)}cd`].flatMap(variants);
    const datasets = [
      ...variants('/expenses').map((path) => datasetKey(path)),
      ...variants('pending').map((type) => datasetKey('/expenses', { type })),
      ...variants('aux').map((path) => datasetKey(`/${path}`, { q: 'Nul' })),
      ...variants('v'.repeat(190)).map((value) => datasetKey('/x', { long: value })),
    ];
    for (const [inputs, name] of [
      [users, userDirName],
      [datasets, datasetFileName],
    ] as const) {
      const names = inputs.map(name);
      const folded = new Set(names.map((each) => each.toLowerCase()));
      assert.equal(folded.size, new Set(inputs).size, 'distinct once folded');
      for (const each of names) {
        assert.ok(each !== '' && each !== '.' && each !== '..', each);
        // Only the encoding's alphabet: no separator, NUL or other control, nothing Windows forbids.
        assert.match(each, /^[A-Za-z0-9_%=+@,.-]+$/, each);
        assert.doesNotMatch(each, /\.$/, each);
        assert.doesNotMatch(each.split('.')[0] ?? '', /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i, each);
      }
    }
  });

  it('tokenFingerprint is short, stable and never the token', () => {
    const token = 'secret-token-value';
    assert.equal(tokenFingerprint(token), tokenFingerprint(token));
    assert.notEqual(tokenFingerprint(token), tokenFingerprint(`${token}x`));
    assert.match(tokenFingerprint(token), /^[0-9a-f]{16}$/);
    assert.ok(!tokenFingerprint(token).includes(token));
  });

  it('stateKey and jobId keep users, tokens, servers and datasets apart', () => {
    const base = { baseUrl: 'http://h/rest/v5/', dataset: '/expenses', tokenFingerprint: 'f1', userId: '' };
    const variants = [
      base,
      { ...base, tokenFingerprint: 'f2' },
      { ...base, userId: 'a/b' },
      { ...base, userId: 'a_b' },
      { ...base, userId: '_' },
      { ...base, baseUrl: 'http://other/rest/v5' },
      { ...base, dataset: '/expenses?type=PENDING' },
    ];
    assert.equal(new Set(variants.map(stateKey)).size, variants.length);
    assert.equal(new Set(variants.map(jobId)).size, variants.length);
    for (const id of variants.map(jobId)) assert.doesNotMatch(id, /:/);
    assert.equal(stateKey(base), 'token=f1@http://h/rest/v5/expenses');
    assert.equal(stateKey({ ...base, userId: 'a/b' }), 'user=a%2Fb@http://h/rest/v5/expenses');
  });
});
