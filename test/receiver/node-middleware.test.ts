/**
 * createNodeMiddleware in real Express apps and a bare node:http server on port 0, checked with the
 * built `ledgerhook check-receiver` (run `npm run build` first) and with plain requests.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express from 'express';
import { type ReceiverLog, Webhooks } from '@ledgerhook/webhooks';
import { createNodeMiddleware } from '@ledgerhook/webhooks/node';
import { runInProcess } from '../helpers/in-process-cli.js';
import { assertCheckReceiverPasses, ENTITY_UPDATE, independentDelivery, post, SECRET } from './helpers.js';

function capturingLog() {
  const lines: string[] = [];
  const log: ReceiverLog = { warn: (m) => void lines.push(m), error: (m) => void lines.push(m) };
  return { log, lines };
}

async function serve(listener: RequestListener, run: (url: string) => Promise<void>): Promise<void> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('createNodeMiddleware with Express', () => {
  it('never answers 2xx when express.json() runs first, and logs the fix once', async () => {
    const { log, lines } = capturingLog();
    let handled = 0;
    const webhooks = new Webhooks({ secret: SECRET, log }).onAny(() => {
      handled += 1;
    });
    const app = express();
    app.use(express.json());
    app.post('/webhooks', createNodeMiddleware(webhooks));
    await serve(app, async (url) => {
      // In-process (same definitions and command); the built bin runs against express.raw below.
      const result = await runInProcess(['check-receiver', '--to', url, '--secret', SECRET, '--json']);
      const report = JSON.parse(result.stdout) as { cases: Array<{ id: string; status?: number }> };
      assert.equal(result.code, 1);
      const answered2xx = report.cases.filter((c) => c.status !== undefined && c.status >= 200 && c.status < 300);
      assert.deepEqual(answered2xx, []);
      const valid = await post(url, independentDelivery(ENTITY_UPDATE));
      assert.deepEqual([valid.status, valid.body], [500, '{"error":"body_already_parsed"}']);
    });
    assert.equal(handled, 0);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /before express\.json\(\), or use express\.raw/);
  });

  for (const [title, parser] of [
    ['express.raw', express.raw({ type: '*/*' })],
    ['express.text', express.text({ type: '*/*' })],
  ] as const) {
    it(`uses the bytes ${title} left in req.body: check-receiver passes`, async () => {
      const app = express();
      app.post('/webhooks', parser, createNodeMiddleware(new Webhooks({ secret: SECRET })));
      // The built bin against express.raw; the same command in-process against the others.
      await serve(app, (url) => assertCheckReceiverPasses(url, { inProcess: title !== 'express.raw' }));
    });
  }

  it('reads the stream itself when a parser left `{}` without reading it (Express 4 json() on a skipped request)', async () => {
    const app = express();
    app.use((req, _res, next) => {
      req.body = {};
      next();
    });
    app.post('/webhooks', createNodeMiddleware(new Webhooks({ secret: SECRET })));
    await serve(app, async (url) => {
      assert.equal((await post(url, independentDelivery(ENTITY_UPDATE))).status, 200);
    });
  });
});

describe('createNodeMiddleware after a middleware that drained the body without keeping it', () => {
  it('answers 500 body_already_parsed and logs the fix, rather than wait for bytes that never come', async () => {
    const { log, lines } = capturingLog();
    const app = express();
    app.use((req, _res, next) => {
      req.resume();
      req.on('end', () => next());
    });
    app.post('/webhooks', createNodeMiddleware(new Webhooks({ secret: SECRET, log })));
    await serve(app, async (url) => {
      const delivery = independentDelivery(ENTITY_UPDATE);
      // A deadline, not a pause: without an answer the request would otherwise hang the test.
      const init = { method: 'POST', ...delivery, signal: AbortSignal.timeout(20_000) };
      const response = await fetch(url, init);
      assert.deepEqual([response.status, await response.text()], [500, '{"error":"body_already_parsed"}']);
    });
    assert.equal(lines.length, 1);
  });
});

describe('createNodeMiddleware in a Next.js pages/api-style route (req, res)', () => {
  /** Like Next.js's API routes: the body is parsed into req.body unless config.api.bodyParser is false. */
  const apiRoute =
    (handler: RequestListener, bodyParser: boolean): RequestListener =>
    (req, res) => {
      if (!bodyParser) return void handler(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString() || '{}') });
        handler(req, res);
      });
    };

  it('with the default body parser: 500 and the fix logged; with bodyParser false: 200', async () => {
    const { log, lines } = capturingLog();
    const middleware = createNodeMiddleware(new Webhooks({ secret: SECRET, log }));
    const delivery = independentDelivery(ENTITY_UPDATE);
    await serve(apiRoute(middleware, true), async (url) => {
      assert.deepEqual(Object.values(await post(url, delivery)), [500, '{"error":"body_already_parsed"}']);
    });
    assert.match(lines.join('\n'), /export const config = \{ api: \{ bodyParser: false \} \}/);
    await serve(apiRoute(middleware, false), async (url) => {
      assert.equal((await post(url, delivery)).status, 200);
    });
  });
});

describe('createNodeMiddleware with node:http', () => {
  const middleware = (options: { maxBodyBytes?: number } = {}) =>
    createNodeMiddleware(new Webhooks({ secret: SECRET }), { path: '/webhooks', ...options });

  it('passes check-receiver', async () => {
    await serve(middleware(), (url) => assertCheckReceiverPasses(url, { inProcess: true }));
  });

  it('answers 405 with Allow: POST, 404 off its path, 413 past the limit (declared or streamed)', async () => {
    await serve(middleware({ maxBodyBytes: 1024 }), async (url) => {
      const get = await fetch(url);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      assert.equal((await fetch(url.replace('/webhooks', '/elsewhere'), { method: 'POST' })).status, 404);
      const big = independentDelivery({ ...ENTITY_UPDATE, padding: 'x'.repeat(2048) });
      assert.equal((await post(url, big)).status, 413);
      assert.equal(await streamedStatus(url, 'x'.repeat(4096)), 413);
    });
  });

  it('refuses a duplicated verification header', async () => {
    await serve(middleware(), async (url) => {
      const signed = independentDelivery(ENTITY_UPDATE);
      const token = signed.headers['service-verification'] ?? '';
      const status = await rawPost(url, signed.body, { 'service-verification': [token, token] });
      assert.equal(status, 400);
      const single = await rawPost(url, signed.body, { 'Service-Verification': token });
      assert.equal(single, 200, 'the same delivery with one header is accepted');
    });
  });

  it('answers 500 handler_failed without the message when a handler throws', async () => {
    const errors: unknown[] = [];
    const webhooks = new Webhooks({ secret: SECRET })
      .on('ENTITY_UPDATE', () => Promise.reject(new Error('secret internals')))
      .onError((error) => void errors.push(error.cause));
    await serve(createNodeMiddleware(webhooks), async (url) => {
      const answer = await post(url, independentDelivery(ENTITY_UPDATE));
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"handler_failed"}']);
    });
    assert.equal(errors.length, 1);
  });
});

/** A POST with chunked encoding (no Content-Length), so that only counting the stream can catch it. */
function streamedStatus(url: string, body: string): Promise<number> {
  return rawPost(url, body, {}, true);
}

/** node:http request; an array value is sent as one header line per value (fetch would merge them). */
function rawPost(
  url: string,
  body: string,
  headers: Record<string, string | string[]>,
  chunked = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    // write() before end() without a Content-Length makes node:http send the body chunked.
    if (chunked) req.write(body);
    req.end(chunked ? undefined : body);
  });
}
