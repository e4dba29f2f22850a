import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSyncJobData, syncDedupeId } from '../../src/queue/sync-job.js';
import { datasetFileName, datasetKey, parseDatasetKey, stateKey, userDirName } from '../../src/store/identity.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';

/** Three ids UTF-8 cannot tell apart once encoded: two lone surrogates and the replacement character. */
const IDS = ['\ud800', '\udc00', '\ufffd'];

describe('no two users share anything', () => {
  it('lone-surrogate userIds are refused; U+FFFD is its own user', () => {
    const identities = IDS.map((id) => {
      try {
        return userDirName(id);
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    });
    assert.match(identities[0]!, /^refused: .*not well-formed Unicode/);
    assert.match(identities[1]!, /^refused: .*not well-formed Unicode/);
    assert.equal(identities[2], '%EF%BF%BD');
    // A paired surrogate (an emoji) is well-formed and stays a user of its own.
    assert.equal(userDirName('\ud83d\ude00'), '%F0%9F%98%80');
  });

  it('the state key, the job id and the queue refuse them too, so nothing downstream can merge them', () => {
    const ref = (userId: string) => ({ userId, tokenFingerprint: 'f', baseUrl: 'http://x', dataset: '/expenses' });
    for (const id of IDS.slice(0, 2)) {
      assert.throws(() => stateKey(ref(id)), /not well-formed/);
      assert.throws(() => syncDedupeId(id, '/expenses'), /not well-formed/);
      assert.equal(parseSyncJobData({ userId: id, entity: 'expense', path: '/expenses', filter: {} }), undefined);
    }
    assert.equal(
      parseSyncJobData({ userId: '\ufffd', entity: 'expense', path: '/expenses', filter: {} })?.userId,
      '\ufffd',
    );
  });

  it('an authentic body with such a userId is refused with invalid_user, and so are numbers, null and arrays', () => {
    for (const userId of ['"\\ud800"', '"\\udc00"', '7', 'null', '["a"]']) {
      const parsed = parseWebhookBody(`{"userId":${userId},"type":"ENTITY_UPDATE","entities":["expense"]}`);
      assert.equal(parsed.ok, false, userId);
      assert.equal(!parsed.ok && parsed.code, 'invalid_user', userId);
    }
    assert.equal(parseWebhookBody('{"userId":"\\ufffd","type":"ENTITY_UPDATE","entities":[]}').ok, true);
  });

  it('every dataset key maps to its own file name; what is not a dataset key is refused', () => {
    const keys = ['/', '/root', '/root/', '/a//b', '/a/b', '/a_b', '/a%2Fb', '/+root', '/+', '/expenses?type=PENDING'];
    const names = keys.map(datasetFileName);
    assert.equal(new Set(names).size, keys.length, names.join(' '));
    for (const key of ['', 'expenses', '//root', '/a?b', '/a?b=1&a=2', '/a?x=%41'])
      assert.throws(
        () => datasetFileName(key),
        (error: { details?: { reason?: string } }) => error.details?.reason === 'invalid_dataset_path',
        key,
      );
  });
});

describe('parseDatasetKey', () => {
  it('gives back the path and filter a dataset key was made of', () => {
    for (const [path, filter] of [
      ['/expenses', {}],
      ['/expenses/expenses', { type: 'PENDING' }],
      ['/invoices', { 'a b': 'x?y&z=1', type: 'é' }],
    ] as const) {
      const key = datasetKey(path, filter);
      assert.deepEqual(parseDatasetKey(key), { path, filter });
    }
  });
});
