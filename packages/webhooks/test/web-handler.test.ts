import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Request as UndiciRequest } from 'undici';
import { createWebMiddleware, type ReceiverLog, Webhooks } from '@ledgerhook/webhooks';
import { ENTITY_UPDATE, independentDelivery, SECRET } from './independent-jwt.js';

const request = (body: string, headers: Record<string, string>, init: RequestInit = {}) =>
  new Request('http://receiver.test/webhooks', { method: 'POST', body, headers, ...init });

describe('createWebMiddleware', () => {
  it('answers a fetch Request: 200, 400 {error}, 405, 413 (declared and streamed)', async () => {
    const handler = createWebMiddleware(new Webhooks({ secret: SECRET }), { maxBodyBytes: 1024 });
    const valid = independentDelivery(ENTITY_UPDATE);
    assert.equal((await handler(request(valid.body, valid.headers))).status, 200);
    const forged = independentDelivery(ENTITY_UPDATE, { secret: 'wrong' });
    const refused = await handler(request(forged.body, forged.headers));
    assert.deepEqual([refused.status, await refused.json()], [400, { error: 'bad_signature' }]);
    const get = await handler(new Request('http://receiver.test/webhooks'));
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
    const big = independentDelivery({ ...ENTITY_UPDATE, padding: 'x'.repeat(2048) });
    assert.equal((await handler(request(big.body, big.headers))).status, 413);
    // A stream has no Content-Length: only counting the bytes catches it.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i += 1) controller.enqueue(new Uint8Array(512));
        controller.close();
      },
    });
    const streamed = await handler(request('', {}, { body: stream, duplex: 'half' } as RequestInit));
    assert.equal(streamed.status, 413);
  });

  it('takes a Request built by another copy of undici (not `instanceof` the global Request)', async () => {
    const handler = createWebMiddleware(new Webhooks({ secret: SECRET }));
    const valid = independentDelivery(ENTITY_UPDATE);
    const foreign = new UndiciRequest('http://receiver.test/webhooks', {
      method: 'POST',
      body: valid.body,
      headers: valid.headers,
    });
    assert.equal(foreign instanceof Request, false);
    const response = await handler(foreign as unknown as Request);
    assert.deepEqual([response.status, await response.json()], [200, { received: true }]);
  });

  it('mounts directly as a Hono handler (it takes the context too)', async () => {
    const seen: string[] = [];
    const webhooks = new Webhooks({ secret: SECRET }).on('ENTITY_UPDATE', ({ userId }) => void seen.push(userId));
    const app = new Hono();
    app.post('/webhooks', createWebMiddleware(webhooks));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const delivery = independentDelivery(ENTITY_UPDATE);
      const response = await fetch(url, { method: 'POST', body: delivery.body, headers: delivery.headers });
      assert.equal(response.status, 200);
      assert.deepEqual(seen, ['user_1']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('never verifies a body a middleware already read: 500 body_already_parsed, the fix logged once', async () => {
    const lines: string[] = [];
    const log: ReceiverLog = { warn: (m) => void lines.push(m), error: (m) => void lines.push(m) };
    let handled = 0;
    const webhooks = new Webhooks({ secret: SECRET, log }).onAny(() => {
      handled += 1;
    });
    const app = new Hono();
    // Hono caches the parsed JSON; a later c.req.arrayBuffer() would hand back re-serialised JSON.
    app.use('/webhooks', async (c, next) => {
      await c.req.json();
      await next();
    });
    app.post('/webhooks', createWebMiddleware(webhooks));
    const delivery = independentDelivery(ENTITY_UPDATE);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await app.request('/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headers,
      });
      assert.deepEqual([response.status, await response.json()], [500, { error: 'body_already_parsed' }]);
    }
    assert.equal(handled, 0);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /before ledgerhook could verify it.*first to read the body/);
  });
});
