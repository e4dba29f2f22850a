import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { tempDir } from '../helpers/cli.js';
import { join } from 'node:path';

/** Not the mock: a list server that answers 503 `failures` times, then one page. */
async function flakyServer(failures: number) {
  let seen = 0;
  const server = createServer((_request, response) => {
    seen += 1;
    if (seen <= failures) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: [{ id: 1 }], lastUpdatedDate: '2026-11-24T00:00:00Z' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
    requests: () => seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('listen --sync retries a transient failure instead of dropping it after the answer (issue 17)', () => {
  it('503s past the request retries: the sync runs again with backoff, says so, and converges', async () => {
    const server = await flakyServer(3);
    const events: WebhookSyncEvent[] = [];
    const dir = tempDir();
    const sync = createWebhookSync({
      baseUrl: server.baseUrl,
      tokenFor: () => 'tok',
      store: new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') }),
      retry: { firstMs: 5, capMs: 20, max: 5 },
      // Each run gives up at the first 503 (no wait budget): the run-level retry is what is tested.
      maxWaitMs: 0,
      onEvent: (event) => events.push(event),
    });
    try {
      sync.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] })));
      await sync.idle();
      const kinds = events.map((event) => event.type);
      assert.ok(kinds.includes('sync-retry'), kinds.join());
      assert.equal(kinds.at(-1), 'sync-done', kinds.join());
      assert.ok(!kinds.includes('sync-failed'));
    } finally {
      await server.close();
    }
  });

  it('a permanent failure (401) is not retried', async () => {
    const server = createServer((_request, response) => response.writeHead(401).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const events: WebhookSyncEvent[] = [];
    const dir = tempDir();
    const sync = createWebhookSync({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
      tokenFor: () => 'tok',
      store: new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') }),
      retry: { firstMs: 5, capMs: 20 },
      onEvent: (event) => events.push(event),
    });
    sync.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] })));
    await sync.idle();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assert.deepEqual(
      events.map((event) => event.type),
      ['sync-start', 'sync-failed'],
    );
  });
});
