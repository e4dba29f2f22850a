/**
 * The "not shown" clauses of the spec: what ledgerhook does where the interface says nothing.
 * Each test pins the choice documented in docs/spec-coverage.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MockService } from '../../src/mock/mock-service.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';
import { runCli, tempDir } from '../helpers/cli.js';
import { startSpecListServer } from '../helpers/spec-list-server.js';

describe('spec: not shown, and how ledgerhook copes', () => {
  it('4.3 "other operations (create, update, delete): not shown": the mock serves GET only (405 with Allow: GET)', async () => {
    const service = new MockService({ items: 2 });
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await service.handle({
        method,
        url: '/rest/v5/expenses',
        headers: { authorization: `Bearer ${service.token}` },
        body: '{}',
      });
      assert.deepEqual([response.status, response.headers.allow], [405, 'GET'], method);
      assert.equal((response.body as { error: string }).error, 'method_not_allowed');
    }
  });

  it('4.3 "query parameters other than type: not shown": sync passes any --filter through, on every page', async () => {
    const server = await startSpecListServer({ items: 12 });
    try {
      const result = await runCli(
        [
          'sync',
          '/things',
          '--base-url',
          server.baseUrl,
          '--token',
          server.token,
          '--out',
          tempDir(),
          '--limit',
          '5',
          '--type',
          'PENDING',
          '--filter',
          'region=eu',
          '--json',
        ],
        { env: { LEDGERHOOK_CONFIG_DIR: tempDir() } },
      );
      assert.equal(result.code, 0, result.stderr);
      const log = server.log();
      assert.ok(log.length >= 1);
      for (const request of log)
        assert.deepEqual(Object.fromEntries(new URLSearchParams(request.query)), { region: 'eu', type: 'PENDING' });
      const summary = JSON.parse(result.stdout) as { file: string };
      assert.deepEqual(JSON.parse(readFileSync(summary.file, 'utf8')), server.truth('PENDING'));
    } finally {
      await server.close();
    }
  });

  it('9 "webhook body versioning: not shown": fields a later version may add are tolerated, not refused', () => {
    const entityUpdate = parseWebhookBody(
      JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'], version: 2, sentAt: 'x' }),
    );
    assert.ok(entityUpdate.ok);
    assert.deepEqual(entityUpdate.body, { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const lifecycle = parseWebhookBody(
      JSON.stringify({ userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_PAID', eventData: {}, extra: [1] }),
    );
    assert.ok(lifecycle.ok && lifecycle.body.type === 'LIFECYCLE_EVENT' && lifecycle.body.event === 'INVOICE_PAID');
  });

  it('7 "error codes and bodies: not shown": the mock answers every refusal as { error, message } JSON', async () => {
    const service = new MockService({ items: 2 });
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['/rest/v5/expenses', {}, 401, 'unauthorized'],
      ['/rest/v5/expenses', { limit: '0' }, 400, 'invalid_limit'],
      ['/rest/v5/expenses', { cursor: 'forged' }, 400, 'invalid_cursor'],
      ['/rest/v5/nothing', {}, 404, 'not_found'],
      ['/elsewhere', {}, 404, 'not_found'],
    ];
    for (const [url, extra, status, error] of cases) {
      const headers: Record<string, string> = { ...extra };
      if (status !== 401) headers.authorization = `Bearer ${service.token}`;
      const response = await service.handle({ method: 'GET', url, headers });
      const body = response.body as { error: string; message: string };
      assert.deepEqual([response.status, body.error], [status, error], url);
      assert.ok(body.message.length > 0 && !body.message.includes('--'), 'a neutral message, no CLI flag');
    }
  });
});
