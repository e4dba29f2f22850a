/**
 * One Express app for bench/receiver-express.ts, in its own process: `hand` verifies with the
 * hand-written `express.raw` + `jsonwebtoken` recipe, `ledgerhook` with `createNodeMiddleware`.
 * `hand-key` is the same recipe given a KeyObject instead of the secret string: jsonwebtoken 9
 * first tries the string as a public key and pays for the thrown error on every call, so this
 * variant shows how much of the gap is that. `floor` is Express alone: it reads the body and answers,
 * verifying nothing (what any Express receiver pays before its own work). All run the same no-op
 * handler and answer 200 JSON.
 */
import { createHash, createSecretKey, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { Webhooks } from '@ledgerhook/webhooks';
import { createNodeMiddleware } from '@ledgerhook/webhooks/node';

const secret = process.env.BENCH_SECRET ?? 'bench-secret';
const variant = process.argv[2];
let handled = 0;
const handle = (body: { userId: string }) => {
  if (body.userId) handled += 1;
};

const app = express();
if (variant === 'ledgerhook') {
  const webhooks = new Webhooks({ secret }).on('ENTITY_UPDATE', handle);
  app.post('/webhooks', createNodeMiddleware(webhooks));
} else if (variant === 'floor') {
  app.post('/webhooks', express.raw({ type: '*/*', limit: '1mb' }), (req, res) => {
    handle(JSON.parse((req.body as Buffer).toString('utf8')));
    res.status(200).json({ received: true });
  });
} else if (variant === 'hand' || variant === 'hand-key') {
  // The recipe a developer writes by hand from spec 5.2.
  const key = variant === 'hand-key' ? createSecretKey(Buffer.from(secret, 'utf8')) : secret;
  app.post('/webhooks', express.raw({ type: '*/*', limit: '1mb' }), (req, res) => {
    try {
      const claims = jwt.verify(req.get('service-verification') ?? '', key, {
        algorithms: ['HS256'],
        maxAge: 300,
      }) as { request_body_sha256?: unknown };
      const hash = Buffer.from(
        createHash('sha256')
          .update(req.body as Buffer)
          .digest('base64'),
      );
      const claimed = Buffer.from(String(claims.request_body_sha256));
      if (hash.length !== claimed.length || !timingSafeEqual(hash, claimed)) {
        res.status(400).json({ error: 'body_mismatch' });
        return;
      }
      handle(JSON.parse((req.body as Buffer).toString('utf8')));
      res.status(200).json({ received: true });
    } catch {
      res.status(400).json({ error: 'invalid_token' });
    }
  });
} else {
  throw new Error(`unknown variant ${variant}; use floor, hand, hand-key or ledgerhook`);
}
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`port ${(server.address() as AddressInfo).port}`);
});
process.on('SIGINT', () => {
  server.closeAllConnections();
  server.close(() => process.exit(handled >= 0 ? 0 : 1));
});
