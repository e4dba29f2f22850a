/**
 * The receiver snippets of docs/receiving-webhooks.md, each run as written against the real framework and the real
 * `ledgerhook check-receiver` (built bin). `npm run build` first: the snippets import 'ledgerhook'.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { tsImport } from 'tsx/esm/api';
import {
  assertCheckReceiverPasses,
  ENTITY_UPDATE,
  independentDelivery,
  post,
  type RunningApp,
  SECRET,
  startApp,
} from './helpers.js';

const snippet = (name: string) => fileURLToPath(new URL(`../../test/receiver/snippets/${name}`, import.meta.url));
const GUIDE = readFileSync(new URL('../../docs/receiving-webhooks.md', import.meta.url), 'utf8');

describe('the snippets of docs/receiving-webhooks.md', () => {
  for (const name of ['express.ts', 'node-http.ts', 'hono.ts', 'nextjs-route.ts', 'fastify.ts']) {
    it(`the guide contains ${name} verbatim`, () => {
      assert.ok(GUIDE.includes(readFileSync(snippet(name), 'utf8').trim()), `the guide lacks snippets/${name}`);
    });
  }

  for (const name of ['express.ts', 'node-http.ts', 'hono.ts', 'fastify.ts']) {
    describe(name, () => {
      let app: RunningApp;
      before(async () => {
        app = await startApp(snippet(name));
      });
      after(() => app.stop());

      it('passes every case of check-receiver', async () => {
        // The built bin against the first snippet; the same command in-process against the others.
        await assertCheckReceiverPasses(app.url, { inProcess: name !== 'express.ts' });
      });

      it('accepts a delivery signed by an independent JWT implementation and refuses forged ones', async () => {
        assert.equal((await post(app.url, independentDelivery(ENTITY_UPDATE))).status, 200);
        await app.waitForOutput(/user_1/);
        const forged = [
          independentDelivery(ENTITY_UPDATE, { secret: 'not-the-secret' }),
          independentDelivery(ENTITY_UPDATE, { alg: 'HS512' }),
          independentDelivery(ENTITY_UPDATE, { iat: Math.floor(Date.now() / 1000) - 300 }),
          { ...independentDelivery(ENTITY_UPDATE), body: JSON.stringify({ ...ENTITY_UPDATE, userId: 'user_2' }) },
        ];
        for (const delivery of forged) {
          const answer = await post(app.url, delivery);
          assert.equal(answer.status, 400, answer.body);
          assert.match(answer.body, /^\{"error":"[a-z_]+"\}$/);
        }
        // The handler ran for the authentic delivery only.
        assert.equal(app.output().match(/user_1/g)?.length, 1);
        assert.doesNotMatch(app.output(), /user_2/);
      });
    });
  }

  describe('nextjs-route.ts (a Request -> Response handler, served by @hono/node-server)', () => {
    let server: ServerType;
    let url: string;
    before(async () => {
      process.env.WEBHOOK_SECRET = SECRET;
      // tsImport: the snippet is TypeScript as written in the guide, also when this test runs compiled.
      const route = (await tsImport(snippet('nextjs-route.ts'), import.meta.url)) as {
        POST: (request: Request) => Promise<Response>;
      };
      // Like Next.js, every request of the route reaches the exported handler; it answers 405 itself.
      await new Promise<void>((resolve) => {
        server = serve({ fetch: route.POST, port: 0, hostname: '127.0.0.1' }, () => resolve());
      });
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('passes every case of check-receiver', async () => {
      await assertCheckReceiverPasses(url, { inProcess: true });
    });

    it('answers 405 with Allow: POST to other methods and 413 past 1 MiB', async () => {
      const get = await fetch(url);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      const big = independentDelivery({ ...ENTITY_UPDATE, padding: 'x'.repeat(1024 * 1024) });
      assert.equal((await post(url, big)).status, 413);
    });
  });
});
