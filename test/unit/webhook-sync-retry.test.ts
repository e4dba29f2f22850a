import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { tempDir } from '../helpers/cli.js';
import { flakyListServer as flakyServer } from '../helpers/flaky-list-server.js';
import { join } from 'node:path';

describe('listen --sync retries a transient failure instead of dropping it after the answer', () => {
  it('503s past the request retries: the sync runs again after the one backoff, says so, and converges', async (t) => {
    // A fixed random source: each wait is exactly half its base (util/backoff.ts), 5 ms doubling to 20.
    t.mock.method(Math, 'random', () => 0.5);
    const server = await flakyServer(3);
    const events: WebhookSyncEvent[] = [];
    const dir = tempDir();
    const sync = createWebhookSync({
      baseUrl: server.baseUrl,
      tokenFor: () => 'tok',
      store: new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') }),
      retry: { firstMs: 5, capMs: 20, max: 5 },
      // Each run gives up at the first 503 (no wait budget): the run-level retry is what is tested.
      limits: { maxWaitMs: 0 },
      onEvent: (event) => events.push(event),
    });
    try {
      sync.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] })));
      await sync.idle();
      const kinds = events.map((event) => event.type);
      assert.ok(kinds.includes('sync-retry'), kinds.join());
      assert.equal(kinds.at(-1), 'sync-done', kinds.join());
      assert.ok(!kinds.includes('sync-failed'));
      const waits = events.flatMap((event) => (event.type === 'sync-retry' ? [event.inMs] : []));
      assert.deepEqual(waits, [2, 5, 10]);
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
