import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findEntity } from '@ledgerhook/webhooks';
import { checkEntityPaths, entityAtPath, entityPath } from '../../src/catalogue/entity-paths.js';
import { parseSyncJobData, syncJobFor } from '../../src/queue/sync-job.js';
import { HttpStatusError } from '../../src/errors.js';
import { explainEntityNotFound } from '../../src/sync/entity-not-found.js';

const paths = { expense: '/expenses/expenses' };

describe('entity path overrides', () => {
  it('resolve an entity to its override or the catalogue path, and back', () => {
    const expense = findEntity('expense');
    assert.ok(expense);
    assert.equal(entityPath(expense, paths), '/expenses/expenses');
    assert.equal(entityPath(expense), '/expenses');
    assert.equal(entityAtPath('/expenses/expenses', paths)?.name, 'expense');
    // With the override in force, the catalogue path no longer stands for expense.
    assert.equal(entityAtPath('/expenses', paths), undefined);
    assert.equal(entityAtPath('/invoices', paths)?.name, 'invoice');
  });

  it('are checked: known entities, plain paths, normalised', () => {
    assert.deepEqual(checkEntityPaths({ expense: '/expenses/expenses/' }), paths);
    for (const bad of [{ unicorn: '/x' }, { expense: 'x' }, { expense: '/a/../b' }, { expense: '/a?x' }])
      assert.throws(() => checkEntityPaths(bad), { code: 'ERR_USAGE' });
  });

  it('queue jobs carry the producer path; a worker accepts only its own path or the catalogue one and requests its own', () => {
    const job = syncJobFor('user-1', 'expense', paths);
    assert.equal(job?.path, '/expenses/expenses');
    assert.equal(parseSyncJobData(job, paths)?.path, '/expenses/expenses');
    assert.equal(parseSyncJobData({ ...job, path: '/expenses' }, paths)?.path, '/expenses/expenses');
    assert.equal(parseSyncJobData({ ...job, path: '/anything/else' }, paths), undefined);
    // A worker without the override refuses a job that names a path it was not given.
    assert.equal(parseSyncJobData(job), undefined);
  });

  it('a job carries the id of the delivery that caused it, read back only when an id could be one', () => {
    const job = { ...syncJobFor('user-1', 'invoice'), deliveryId: 'dlv_mww9bl3s652032000' };
    assert.equal(parseSyncJobData(job)?.deliveryId, 'dlv_mww9bl3s652032000');
    for (const deliveryId of ['', 'a b', 'x\n', 'é', 'x'.repeat(201), 7])
      assert.equal(parseSyncJobData({ ...job, deliveryId })?.deliveryId, undefined, JSON.stringify(deliveryId));
    assert.equal(parseSyncJobData({ ...job, deliveryId: 'a b' })?.userId, 'user-1');
  });

  it('a 404 on an entity path is explained; other statuses and unknown paths pass through', () => {
    const base = 'http://x/rest/v5';
    const notFound = new HttpStatusError('GET', 'http://x/rest/v5/expenses', 404, 'Not Found');
    const explained = explainEntityNotFound(notFound, '/expenses', undefined, base) as HttpStatusError;
    assert.equal(explained.details.reason, 'entity_path_not_found');
    assert.equal(explained.details.suggested, '/expenses/expenses');
    assert.match(explained.message, /expense/);
    const overridden = explainEntityNotFound(notFound, '/expenses/expenses', paths, base) as HttpStatusError;
    assert.equal(overridden.details.overridden, true);
    assert.equal(overridden.details.suggested, undefined);
    const other = new HttpStatusError('GET', 'http://x/rest/v5/expenses', 500, '');
    assert.equal(explainEntityNotFound(other, '/expenses', undefined, base), other);
    assert.equal(explainEntityNotFound(notFound, '/custom/thing', undefined, base), notFound);
  });

  it('a 404 under a base URL without /rest/vN blames the base URL, never the entity path', () => {
    const notFound = new HttpStatusError('GET', 'http://x:4010/expenses', 404, 'Not Found');
    for (const path of ['/expenses', '/custom/thing']) {
      const explained = explainEntityNotFound(notFound, path, undefined, 'http://x:4010') as HttpStatusError;
      assert.equal(explained.details.reason, 'base_url_not_api_root');
      assert.equal(explained.details.suggested, 'http://x:4010/rest/v5');
      assert.match(explained.message, /probably lacks \/rest\/v5/);
    }
    for (const base of ['http://x/rest/v4', 'https://x/api/rest/v5/', 'http://x/REST/V5'])
      assert.equal(
        (explainEntityNotFound(notFound, '/expenses', undefined, base) as HttpStatusError).details.reason,
        'entity_path_not_found',
        base,
      );
  });
});
