import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { signWebhook } from '@ledgerhook/webhooks';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess, startInProcess } from '../helpers/in-process-cli.js';

/**
 * Not the project's mock: a server written from the spec's one real request, which serves expenses
 * ONLY at /rest/v5/expenses/expenses (as the real service may) and logs every raw request line.
 */
async function nestedExpensesServer(): Promise<{ baseUrl: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.url?.split('?')[0] === '/rest/v5/expenses/expenses' && request.headers.authorization === 'Bearer t0k') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          data: [
            { id: 1, amount: 12.5 },
            { id: 2, amount: 7 },
          ],
          lastUpdatedDate: '2026-11-24T10:00:00Z',
        }),
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not Found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/rest/v5`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function setup() {
  const dir = tempDir();
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 't0k\n');
  return { dir, tokenFile, env: { LEDGERHOOK_CONFIG_DIR: tempDir() } };
}

describe('an entity the service serves at another path', () => {
  it('a 404 names the entity, the path tried, the spec sample path and the setting; one config set makes it sync', async () => {
    const server = await nestedExpensesServer();
    const { dir, tokenFile, env } = setup();
    try {
      const args = ['sync', 'expense', '--base-url', server.baseUrl, '--token-file', tokenFile, '--out', dir, '--json'];
      // The built bin once; the runs after it in-process (same definitions, command modules and error mapping).
      const failed = await runCli(args, { env });
      assert.equal(failed.code, 3, failed.stderr);
      assert.match(failed.stderr, /\/expenses answered 404/);
      assert.match(failed.stderr, /expense/);
      assert.match(failed.stderr, /spec's own sample request uses \/expenses\/expenses/);
      assert.match(failed.stderr, /ledgerhook config set paths\.expense \/expenses\/expenses/);

      const set = await runInProcess(['config', 'set', 'paths.expense', '/expenses/expenses'], { env });
      assert.equal(set.code, 0, set.stderr);
      const synced = await runInProcess(args, { env });
      assert.equal(synced.code, 0, synced.stderr);
      const summary = JSON.parse(synced.stdout);
      assert.deepEqual(
        JSON.parse(readFileSync(summary.file ?? summary.datasets?.[0]?.file, 'utf8')).map(
          (item: { id: number }) => item.id,
        ),
        [1, 2],
      );
      assert.deepEqual(server.requests, ['GET /rest/v5/expenses', 'GET /rest/v5/expenses/expenses']);
      assert.match((await runInProcess(['config', 'get', 'paths.expense'], { env })).stdout, /^\/expenses\/expenses$/m);
    } finally {
      await server.close();
    }
  });

  it('listen --sync requests the overridden path for an ENTITY_UPDATE naming expense', async () => {
    const server = await nestedExpensesServer();
    const { dir, tokenFile, env } = setup();
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, 'whsec_entity_paths_test');
    await runInProcess(['config', 'set', 'paths.expense', '/expenses/expenses'], { env });
    // In-process: listen --sync of the built bin is listen-flags.test.ts's.
    const listen = startInProcess(
      ['listen', '--port', '0', '--json', '--secret-file', secretFile, '--sync', '--base-url', server.baseUrl].concat([
        '--token-file',
        tokenFile,
        '--out',
        join(dir, 'data'),
      ]),
      { env },
    );
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      const body = JSON.stringify({ userId: 'user-1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'service-verification': await signWebhook(body, 'whsec_entity_paths_test'),
        },
        body,
      });
      assert.equal(response.status, 200);
      const done = await listen.waitFor((line) => line?.kind === 'sync-done' || line?.kind === 'sync-failed');
      assert.equal(done.kind, 'sync-done', JSON.stringify(done));
      assert.deepEqual(server.requests, ['GET /rest/v5/expenses/expenses']);
    } finally {
      await listen.stop();
      await server.close();
    }
  });

  it('refuses an override that is not a plain path, and an unknown entity, naming the key', async () => {
    const { env } = setup();
    for (const bad of ['expenses', '/../secrets', '/a?b=1', '/a//b', 'http://evil.example/x']) {
      const result = await runInProcess(['config', 'set', 'paths.expense', bad], { env });
      assert.equal(result.code, 2, `${bad}: ${result.stderr}`);
      assert.match(result.stderr, /not a usable list path/);
    }
    const unknown = await runInProcess(['config', 'set', 'paths.expens', '/x'], { env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown entity in "paths\.expens".*expense/);
  });
});
